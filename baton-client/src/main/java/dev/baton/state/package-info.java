/** Connection states of a {@link dev.baton.BatonClient}, their listeners, and the policies that say which are errors. */
package dev.baton.state;

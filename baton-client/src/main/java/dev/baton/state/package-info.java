/** Connection states of a {@link dev.baton.BatonClient}, their listeners, and the policies that say which are errors. */
@NullMarked
package dev.baton.state;

import org.jspecify.annotations.NullMarked;

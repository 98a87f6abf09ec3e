/** Listener registration shared by the client and the recipes. */
package dev.baton.listen;

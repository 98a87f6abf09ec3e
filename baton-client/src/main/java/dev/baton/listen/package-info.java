/** Listener registration shared by the client and the recipes. */
@NullMarked
package dev.baton.listen;

import org.jspecify.annotations.NullMarked;

/**
 * Helpers Baton's own modules share: path handling and sequence order ({@link dev.baton.internal.BatonPaths}),
 * failure classification and blocking on futures ({@link dev.baton.internal.Failures}), one operation in blocking
 * or asynchronous mode ({@link dev.baton.internal.Requests}), and listener plumbing. Not an API: the module exports
 * this package only to Baton's modules, and it may change in any release.
 */
@NullMarked
package dev.baton.internal;

import org.jspecify.annotations.NullMarked;

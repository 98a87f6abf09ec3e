/**
 * The {@code baton} command: {@code baton demo <recipe>} runs a recipe scenario against an embedded ZooKeeper
 * (or {@code --connect host:port}) and prints what happens as it happens; {@code baton inspect <path>} shows
 * live recipe state on a server.
 *
 * <p>Adding a demo for a recipe takes one class implementing {@link dev.baton.cli.Demo} and one entry in
 * {@link dev.baton.cli.Demos#ALL}. Teaching {@code inspect} a recipe's node layout happens in
 * {@link dev.baton.cli.RecipeNode} and {@link dev.baton.cli.TreePrinter}.
 */
package dev.baton.cli;

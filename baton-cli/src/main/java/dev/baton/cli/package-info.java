/**
 * The {@code baton} command: {@code baton demo <recipe>} runs a recipe scenario against an embedded ZooKeeper
 * (or {@code --connect host:port}) and prints what happens as it happens; {@code baton inspect <path>} shows
 * live recipe state on a server.
 *
 * <p>Adding a demo for a recipe takes one class implementing {@link dev.baton.cli.Demo} and one entry in
 * {@link dev.baton.cli.Demos#ALL}. Teaching {@code inspect} a recipe's node layout takes one class implementing
 * {@link dev.baton.cli.Layout} and one entry in {@link dev.baton.cli.Layouts#ALL}; {@link dev.baton.cli.InspectView}
 * renders what the layouts find as text or JSON, {@link dev.baton.cli.InspectWatch} follows it live.
 */
package dev.baton.cli;

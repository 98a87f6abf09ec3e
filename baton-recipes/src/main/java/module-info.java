/**
 * Baton's recipes: leader election, locks and semaphores, barriers, counters, caches and nodes, each
 * wire-compatible with Apache Curator's recipe of the same name, built only on the client's exported API.
 */
module dev.baton.recipes {
    requires static transitive org.jspecify;
    requires static com.google.errorprone.annotations;
    requires transitive dev.baton.client;
    requires org.slf4j;

    exports dev.baton.recipes.atomic;
    exports dev.baton.recipes.barriers;
    exports dev.baton.recipes.cache;
    exports dev.baton.recipes.leader;
    exports dev.baton.recipes.locks;
    exports dev.baton.recipes.nodes;
    exports dev.baton.recipes.queue;
    exports dev.baton.recipes.shared;
}

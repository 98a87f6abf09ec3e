/**
 * Micrometer meters for a Baton client and its recipes, fed by the client's operation hook; usable with or
 * without Spring.
 */
module dev.baton.micrometer {
    requires static transitive org.jspecify;
    requires static com.google.errorprone.annotations;
    requires transitive dev.baton.recipes;
    requires transitive micrometer.core;

    exports dev.baton.micrometer;
}

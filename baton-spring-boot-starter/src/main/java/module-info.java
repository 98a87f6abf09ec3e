/**
 * Spring Boot auto-configuration for Baton: the client bean, leader-gated work, the Spring Integration lock
 * registry, and (when present) health and metrics. Spring reads the configuration classes reflectively, so the
 * package is open.
 */
module dev.baton.spring {
    requires static transitive org.jspecify;
    requires static com.google.errorprone.annotations;
    requires transitive dev.baton.recipes;
    requires transitive spring.boot;
    requires transitive spring.boot.autoconfigure;
    requires transitive spring.context;
    requires spring.aop;
    requires spring.beans;
    requires spring.core;
    requires org.slf4j;
    requires static dev.baton.micrometer;
    requires static micrometer.core;
    requires static spring.boot.health;
    requires static spring.integration.core;

    exports dev.baton.spring;
    opens dev.baton.spring;
}

/**
 * Service discovery on ZooKeeper under Apache Curator's {@code curator-x-discovery} names, layout and JSON, so
 * that Baton and Curator clients find each other's registrations.
 */
module dev.baton.discovery {
    requires static transitive org.jspecify;
    requires static com.google.errorprone.annotations;
    requires transitive dev.baton.recipes;
    requires static com.fasterxml.jackson.databind;
    requires org.slf4j;

    exports dev.baton.discovery;
    // Jackson reads the payload holder of the default serializer by reflection.
    opens dev.baton.discovery to com.fasterxml.jackson.databind;
}

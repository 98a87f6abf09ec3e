package dev.baton.cli;

import dev.baton.discovery.ServiceInstance;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A service of service discovery ({@code <basePath>/<name>}, Curator's {@code curator-x-discovery} layout): every
 * child is an instance named by its id, holding the instance as Curator's JSON.
 */
final class DiscoveryLayout implements Layout {

    @Override
    public Optional<Finding> recognize(Znode node, InspectOptions options) {
        List<Znode> children = node.childList();
        if (children.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Role> roles = new LinkedHashMap<>();
        List<Object> instances = new ArrayList<>();
        int enabled = 0;
        for (Znode child : children) {
            Optional<ServiceInstance<Object>> decoded = DiscoveryFormat.instance(child.data());
            if (decoded.isEmpty()) {
                return Optional.empty();
            }
            ServiceInstance<Object> instance = decoded.get();
            roles.put(child.name(), new Role(0, instance.isEnabled() ? "instance" : "instance (disabled)", null));
            enabled += instance.isEnabled() ? 1 : 0;
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("id", instance.getId());
            json.put("address", instance.getAddress());
            if (instance.getPort() != null) {
                json.put("port", instance.getPort());
            }
            if (instance.getSslPort() != null) {
                json.put("sslPort", instance.getSslPort());
            }
            json.put("serviceType", instance.getServiceType().name());
            json.put("enabled", instance.isEnabled());
            if (instance.getUriSpec() != null) {
                json.put("uri", instance.buildUriSpec());
            }
            instances.add(json);
        }
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("name", node.name());
        facts.put("instances", instances);
        String summary = "service " + node.name() + ": " + children.size()
                + (children.size() == 1 ? " instance" : " instances") + ", " + enabled + " enabled";
        return Optional.of(new Finding("discovery-service", summary, roles, facts, Set.of()));
    }
}

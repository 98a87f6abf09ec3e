package dev.baton.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code GroupMember} (and any group of {@code PersistentNode} registrations): every child is an ephemeral node
 * named by the member's id, holding its payload. Matched by shape only: keep it last in {@link Layouts#ALL}.
 */
final class GroupLayout implements Layout {

    @Override
    public Optional<Finding> recognize(Znode node, InspectOptions options) {
        List<Znode> children = node.childList();
        if (children.isEmpty() || children.stream().anyMatch(c -> c.ephemeralOwner() == 0
                || RecipeNode.parse(c.name()).isPresent())) {
            return Optional.empty();
        }
        Map<String, Role> roles = new LinkedHashMap<>();
        List<Object> members = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        for (Znode child : children) {
            roles.put(child.name(), new Role(0, "member", null));
            ids.add(child.name());
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("id", child.name());
            json.put("payload", DataFormat.text(child.data()));
            json.put("session", "0x" + Long.toHexString(child.ephemeralOwner()));
            members.add(json);
        }
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("members", members);
        String summary = "group: " + ids.size() + (ids.size() == 1 ? " member (" : " members (")
                + String.join(", ", ids) + ")";
        return Optional.of(new Finding("group", summary, roles, facts, Set.of()));
    }
}

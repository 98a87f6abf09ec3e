package dev.baton.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code DistributedDoubleBarrier}: one ephemeral child per member, named by a random UUID, and a persistent
 * {@code ready} child while the barrier is full. {@code memberQty} is not stored on the server, so the count of
 * members is shown with whether {@code ready} exists: it is created when the count reaches {@code memberQty} and
 * removed by the last member out.
 *
 * <p>Matched by shape only (UUID names, or {@code ready}, and nothing else; member data that is not JSON, so
 * service-discovery instances, also UUID-named, are not taken for members): keep it after the specific layouts
 * in {@link Layouts#ALL}.
 */
final class DoubleBarrierLayout implements Layout {

    static final String READY = "ready";
    private static final Pattern UUID = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    @Override
    public Optional<Finding> recognize(Znode node, InspectOptions options) {
        List<Znode> members = new ArrayList<>();
        boolean ready = false;
        for (Znode child : node.childList()) {
            if (child.name().equals(READY)) {
                ready = true;
            } else if (UUID.matcher(child.name()).matches() && !looksLikeJson(child.data())) {
                members.add(child);
            } else {
                return Optional.empty();
            }
        }
        if (members.isEmpty() && !ready) {
            return Optional.empty();
        }
        Map<String, Role> roles = new LinkedHashMap<>();
        List<Object> memberJson = new ArrayList<>();
        for (Znode member : members) {
            Role role = new Role(0, "member", null);
            roles.put(member.name(), role);
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("node", member.name());
            json.put("session", member.ephemeralOwner() == 0 ? null : "0x" + Long.toHexString(member.ephemeralOwner()));
            memberJson.add(json);
        }
        if (ready) {
            roles.put(READY, new Role(0, "ready", "the barrier is full"));
        }
        String summary = "double barrier: " + members.size() + (members.size() == 1 ? " member" : " members")
                + " in; " + (ready ? "ready exists (all entered: they may go on, then leave)"
                        : "ready does not exist (members still entering, or all leaving)");
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("members", members.size());
        facts.put("ready", ready);
        facts.put("memberNodes", memberJson);
        return Optional.of(new Finding("double-barrier", summary, roles, facts, Set.of()));
    }

    private static boolean looksLikeJson(byte[] data) {
        String text = DataFormat.text(data);
        return text != null && text.stripLeading().startsWith("{");
    }
}

package dev.baton.cli;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a {@link Layout} recognized in a node: the recipe whose state its children hold, shown as the user thinks
 * of it.
 *
 * @param recipe the recipe's kind for scripts, such as {@code "leader-latch"} or {@code "semaphore"}
 * @param summary one line for people, such as {@code "leader latch: leader \"alice\", 2 waiting"}
 * @param roles what each child is, by child name, in the recipe's queue order (children without a role are shown
 *     before them, by name)
 * @param facts what {@code --json} prints under {@code "recipe"} besides the kind and the summary: numbers,
 *     strings, booleans, lists and maps of these
 * @param expand children whose own children are shown even below the requested depth, because they are part of
 *     this recipe's state (a semaphore's {@code leases})
 */
record Finding(String recipe, String summary, Map<String, Role> roles, Map<String, Object> facts,
        Set<String> expand) {

    Finding {
        Objects.requireNonNull(recipe, "recipe");
        Objects.requireNonNull(summary, "summary");
        roles = Collections.unmodifiableMap(new LinkedHashMap<>(roles));
        facts = Collections.unmodifiableMap(new LinkedHashMap<>(facts));
        expand = Set.copyOf(expand);
    }

    /** {@return the JSON object of this finding: {@code type}, {@code summary}, then the facts} */
    Map<String, Object> json() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("type", recipe);
        json.put("summary", summary);
        json.putAll(facts);
        return json;
    }
}

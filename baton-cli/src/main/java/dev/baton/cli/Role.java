package dev.baton.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a child node is to the recipe its parent holds, as {@code baton inspect} shows it in brackets after the
 * child: {@code [#1 leader]}, {@code [#2 waiting (write)]}, {@code [member]}.
 *
 * @param position the place in the recipe's queue, from 1; 0 for nodes without a place (members, markers)
 * @param role what the node is: {@code leader}, {@code holder}, {@code waiting}, {@code member}, ...
 * @param detail a qualifier such as {@code read} or {@code write}, or null
 */
record Role(int position, String role, String detail) {

    Role {
        Objects.requireNonNull(role, "role");
        if (position < 0) {
            throw new IllegalArgumentException("position must be >= 0, was " + position);
        }
    }

    /** {@return the bracketed text's content, such as {@code "#1 holder (read)"}} */
    String display() {
        return (position > 0 ? "#" + position + " " : "") + role + (detail == null ? "" : " (" + detail + ")");
    }

    /** {@return the role for {@code --json}: {@code position} (when queued), {@code role}, {@code detail}} */
    Map<String, Object> json() {
        Map<String, Object> json = new LinkedHashMap<>();
        if (position > 0) {
            json.put("position", position);
        }
        json.put("role", role);
        if (detail != null) {
            json.put("detail", detail);
        }
        return json;
    }
}

package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

    private static final ObjectMapper PARSER = new ObjectMapper();

    @Test
    void everyCharacterSurvivesARoundTrip() throws Exception {
        StringBuilder all = new StringBuilder();
        for (char c = 0; c < 0x300; c++) {
            all.append(c);
        }
        all.append("\u2028\u2029\uD83D\uDE00"); // line separators and an emoji (a surrogate pair)
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("text", all.toString());
        doc.put("key \"with\" quotes\n", "v");

        for (String json : List.of(Json.write(doc), Json.writeLine(doc))) {
            JsonNode parsed = PARSER.readTree(json);
            assertThat(parsed.get("text").asText()).isEqualTo(all.toString());
            assertThat(parsed.get("key \"with\" quotes\n").asText()).isEqualTo("v");
        }
        assertThat(Json.writeLine(doc)).doesNotContain("\n");
    }

    @Test
    void nestedValuesInOrder() throws Exception {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("z", 1);
        doc.put("a", Long.MIN_VALUE);
        doc.put("list", Arrays.asList(true, null, "x", List.of(), Map.of()));
        doc.put("empty", new ArrayList<>());

        assertThat(Json.write(doc)).isEqualTo("""
                {
                  "z": 1,
                  "a": -9223372036854775808,
                  "list": [
                    true,
                    null,
                    "x",
                    [],
                    {}
                  ],
                  "empty": []
                }""");
        assertThat(Json.writeLine(doc))
                .isEqualTo("{\"z\":1,\"a\":-9223372036854775808,\"list\":[true,null,\"x\",[],{}],\"empty\":[]}");
        assertThat(PARSER.readTree(Json.write(doc)).get("a").asLong()).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void refusesWhatJsonCannotHold() {
        assertThatThrownBy(() -> Json.write(1.5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Double");
        assertThatThrownBy(() -> Json.write(Map.of(1, "x"))).isInstanceOf(IllegalArgumentException.class);
    }
}

package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RecipeNodeTest {

    @Test
    void readsEachRecipeMarkerAndTheSequenceAfterItsLastOccurrence() {
        assertThat(RecipeNode.parse("_c_0b1e2f3a-1111-4222-8333-444455556666-latch-0000000007"))
                .hasValueSatisfying(n -> {
                    assertThat(n.marker()).isEqualTo("latch-");
                    assertThat(n.sequence()).isEqualTo(7);
                    assertThat(n.firstRole()).isEqualTo("leader");
                });
        assertThat(RecipeNode.parse("lock-0000000012")).hasValueSatisfying(n -> {
            assertThat(n.marker()).isEqualTo("lock-");
            assertThat(n.sequence()).isEqualTo(12);
            assertThat(n.firstRole()).isEqualTo("holder");
        });
        assertThat(RecipeNode.parse("_c_x-__READ__0000000003")).map(RecipeNode::marker).hasValue("__READ__");
        assertThat(RecipeNode.parse("_c_x-__WRIT__0000000004")).map(RecipeNode::marker).hasValue("__WRIT__");
        assertThat(RecipeNode.parse("_c_x-lease-0000000005")).map(RecipeNode::marker).hasValue("lease-");
        // The last marker counts, as in Curator: an id that happens to contain "lock-" does not confuse it.
        assertThat(RecipeNode.parse("lock-holder-latch-0000000009")).map(RecipeNode::marker).hasValue("latch-");
        // ZooKeeper's sequence counter past Integer.MAX_VALUE prints as a negative number.
        assertThat(RecipeNode.parse("lock--2147483648")).map(RecipeNode::sequence).hasValue(-2147483648L);
    }

    @Test
    void otherNamesAreNotRecipeNodes() {
        assertThat(RecipeNode.parse("member-0000000001")).isEmpty();
        assertThat(RecipeNode.parse("ready")).isEmpty();
        assertThat(RecipeNode.parse("lock-12")).isEmpty();
        assertThat(RecipeNode.parse("0b1e2f3a-1111-4222-8333-444455556666")).isEmpty();
    }
}

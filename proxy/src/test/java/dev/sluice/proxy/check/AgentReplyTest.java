package dev.sluice.proxy.check;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** An agent's line read as HAProxy 2.6 reads it: words of each kind, the last one winning, the description after '#'. */
class AgentReplyTest {

    @Test
    void wordsOfEachKind() {
        AgentReply r = AgentReply.parse("UP, drain\t75% maxconn:30 # all good ");
        assertThat(r.health()).isEqualTo("UP");
        assertThat(r.up()).isTrue();
        assertThat(r.admin()).isEqualTo("drain");
        assertThat(r.weight()).isEqualTo("75%");
        assertThat(r.maxconn()).isEqualTo("maxconn:30");
        assertThat(r.error()).isNull();
        assertThat(r.description()).isEqualTo("all good ");
        assertThat(r.checkDescription(null)).isEqualTo("via agent : UP (all good )");
    }

    @Test
    void theLastWordOfAKindWinsAndTheFirstErrorIsKept() {
        AgentReply r = AgentReply.parse("down up fail ready maint 10% 20% what else");
        assertThat(r.health()).isEqualTo("fail");
        assertThat(r.up()).isFalse();
        assertThat(r.admin()).isEqualTo("maint");
        assertThat(r.weight()).isEqualTo("20%");
        assertThat(r.error()).isEqualTo("what");
        // a down word keeps its own description, else the error stands for it
        assertThat(r.checkDescription(null)).isEqualTo("via agent : fail (what)");
        assertThat(AgentReply.parse("stopped what #bye").checkDescription(null)).isEqualTo("via agent : stopped (bye)");
        // after up, the error (then the warning) replaces the description
        assertThat(AgentReply.parse("up what #bye").checkDescription(null)).isEqualTo("via agent : up (what)");
        assertThat(AgentReply.parse("up #bye").checkDescription("Trailing garbage in maxconn string")).isEqualTo(
                "via agent : up (Trailing garbage in maxconn string)");
    }

    @Test
    void withoutAHealthWordOnlyTheErrorOrWarningIsReported() {
        assertThat(AgentReply.parse("50%").checkDescription(null)).isEmpty();
        assertThat(AgentReply.parse("bogus 20%").checkDescription(null)).isEqualTo("agent reports an error : bogus");
        assertThat(AgentReply.parse("maxconn:x").checkDescription("maxconn string empty or preceded by garbage"))
                .isEqualTo("agent warns : maxconn string empty or preceded by garbage");
        // a weight word needs a leading digit and a '%'
        assertThat(AgentReply.parse("x50%").error()).isEqualTo("x50%");
        assertThat(AgentReply.parse("50").error()).isEqualTo("50");
        // a description without a health word is not reported
        assertThat(AgentReply.parse("drain # later").checkDescription(null)).isEmpty();
        assertThat(AgentReply.parse("").health()).isNull();
        assertThat(AgentReply.parse("down#x").description()).isEmpty();
        assertThat(AgentReply.parse("down#x").error()).isEqualTo("down#x");
    }
}

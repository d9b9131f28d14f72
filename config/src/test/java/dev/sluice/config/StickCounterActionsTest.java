package dev.sluice.config;

import static dev.sluice.config.Configs.FRONTEND_LINE;
import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.inFrontend;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.valid;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The parenthesised part of {@code sc-inc-gpc0(<sc>)}, {@code sc-inc-gpc(<idx>,<sc>)} and their kin, as HAProxy 2.6 checks it. */
class StickCounterActionsTest {

    @Test
    void anyNumericIndexIsTakenAsHaproxyTakesIt() {
        // HAProxy 2.6 accepts an index past the table's array (or past 99): the action then changes nothing
        valid(inFrontend("""
                tcp-request connection sc-inc-gpc(3,1)
                http-request sc-inc-gpc(100,0)
                http-request sc-set-gpt(5,2) 1
                http-request sc-inc-gpc0(2)
                """));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "http-request sc-inc-gpc(x,0)|Missing gpc ID 'sc-inc-gpc(x,0)'. Expects sc-inc-gpc(<GPC ID>,<Track ID>).",
            "http-request sc-set-gpt(1x,0) 3|Missing gpt ID 'sc-set-gpt(1x,0)'. Expects sc-set-gpt(<GPT ID>,<Track ID>).",
            "tcp-request connection sc-inc-gpc(,1)|Missing gpc ID 'sc-inc-gpc(,1)'. Expects sc-inc-gpc(<GPC ID>,<Track ID>).",
            "http-request sc-inc-gpc(1,3)|expects 'sc-inc-gpc(<idx>,<sc>)' with a stick counter number between 0 and 2.",
            "http-request sc-inc-gpc0(7)|with a stick counter number between 0 and 2.",
            "tcp-request connection sc-set-gpt(0,x) 1|with a stick counter number between 0 and 2."})
    void badIndexesAndCountersAreErrors(String line, String message) {
        assertSingleError(parse(inFrontend(line)), FRONTEND_LINE, message);
    }
}

package dev.sluice.config;

import static dev.sluice.config.Configs.errors;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.valid;
import static dev.sluice.config.Configs.warnings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.config.model.Cache;
import dev.sluice.config.model.Config;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * The {@code cache} section, {@code filter cache} and the cache rules, with the messages of {@code haproxy -c} 2.6.12
 * (each case was run through it): src/cache.c's section parser and post-section checks, the filters' checks.
 */
class CacheKeywordsTest {
    /** Lines 1-9: defaults, a frontend; backend 'be' starts at line 9, its lines at 10. */
    private static final String HEAD = Configs.DEFAULTS + """
            frontend fe
                bind :8080
                default_backend be
            backend be
            """;

    private static String withBackend(String backendLines, String rest) {
        return HEAD + Configs.indent(backendLines + "\nserver o 127.0.0.1:8081") + rest;
    }

    private static final String CACHE = "cache c\n    total-max-size 4\n";

    @Test
    void aCacheSectionAndItsDefaults() {
        Config c = valid(withBackend("http-request cache-use c\nhttp-response cache-store c", CACHE + """
                cache big
                    total-max-size 100
                    max-object-size 1000000
                    max-age 240
                    process-vary on
                    max-secondary-entries 3
                """));
        assertThat(c.caches()).containsExactly(
                new Cache(Configs.at(13), "c", 4096, 4 * 1024 * 1024 / 256, 60, false, 10),
                new Cache(Configs.at(15), "big", 102400, 1_000_000, 240, true, 3));
        assertThat(Configs.proxy(c, "be").httpRequestRules()).hasSize(1);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "total-max-size x => 13 => total-max-size wrong value 'x'",
            "total-max-size 5000 => 13 => \"total-max-size\" (5000) must not be greater than 4095",
            "total-max-size 4 5 => 13 => 'total-max-size' cannot handle unexpected argument '5'.",
            "foo bar => 14 => unknown keyword 'foo' in 'cache' section",
            "max-object-size 600000 => 12 => `\"max-object-size\" is limited to an half of \"total-max-size\" => 524288`",
            "max-object-size 1k => 14 => max-object-size wrong value '1k'",
            "max-secondary-entries 0 => 14 => max-secondary-entries wrong value '0'",
    })
    void sectionErrorsAsHaproxy(String line, int at, String message) {
        String cache = line.startsWith("total-max-size") ? "cache c\n    " + line + "\n" : "cache c\n    total-max-size " + (line.startsWith("max-object") ? "1" : "4")
                + "\n    " + line + "\n";
        // HAProxy stops at the first of these; Sluice reports the rest too (a size left unset is also "not specified")
        Diagnostic first = errors(parse(withBackend("", cache))).getFirst();
        assertThat(first.line()).isEqualTo(at);
        assertThat(first.message()).isEqualTo(message);
    }

    @Test
    void sectionHeaderAndSizeAsHaproxy() {
        assertThat(errors(parse(withBackend("", "cache\n    total-max-size 4\n")))).extracting(Diagnostic::line, Diagnostic::message)
                .containsExactly(tuple(12, "'cache' expects a <name> argument"));
        assertThat(errors(parse(withBackend("", CACHE + CACHE)))).extracting(Diagnostic::line, Diagnostic::message)
                .containsExactly(tuple(14, "Duplicate cache name 'c'."));
        assertThat(errors(parse(withBackend("", "cache c\n    max-age 10\n")))).extracting(Diagnostic::line, Diagnostic::message)
                .containsExactly(tuple(12, "Size not specified for cache 'c'"));
        var r = parse(withBackend("", "cache c\n    total-max-size 4\n    process-vary maybe\n"));
        assertThat(errors(r)).isEmpty();
        assertThat(warnings(r)).extracting(Diagnostic::message)
                .containsExactly("'process-vary' expects \"on\" or \"off\" (enable or disable vary processing).");
        var longName = parse(withBackend("", "cache " + "n".repeat(40) + "\n    total-max-size 4\n"));
        assertThat(warnings(longName)).extracting(Diagnostic::message).containsExactly("cache name is limited to 32 characters, truncate to '"
                + "n".repeat(32) + "'.");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "http-request cache-use nosuch => 10 => backend 'be': unable to find the cache 'nosuch' referenced by the filter 'cache'.",
            "filter compression|filter cache c|compression algo gzip|http-request cache-use c => 11 => backend 'be': unable to enable the compression filter before any cache filter.|backend 'be': unable to enable the compression filter before the cache 'c'.",
            "filter compression|http-request cache-use c => 11 => backend 'be': unable to enable the compression filter before the cache 'c'.",
            "filter cache c|filter cache c => 11 => 'filter' : 'be: multiple explicit declarations of the cache filter 'c''",
            "filter cache => 10 => 'filter' : 'cache : expects a <name> argument'",
            "filter cache c x => 10 => 'filter cache' : unknown keyword 'x'.",
            "http-request cache-use => 10 => error detected in backend 'be' while parsing 'http-request cache-use' rule : expects a cache name.",
            "http-request cache-use if TRUE => 10 => error detected in backend 'be' while parsing 'http-request cache-use' rule : expects a cache name.",
            "http-request cache-use c foo => 10 => 'http-request cache-use' expects either 'if' or 'unless' followed by a condition but found 'foo'.",
            "http-response cache-use c => 10 => unknown http-response action 'cache-use' in 'backend' section",
    })
    void filterAndRuleErrorsAsHaproxy(String lines, int line, String messages) {
        var r = parse(withBackend(lines.replace('|', '\n'), CACHE));
        assertThat(errors(r)).extracting(Diagnostic::message).containsExactly(messages.split("\\|"));
        assertThat(errors(r).getFirst().line()).isEqualTo(line);
    }

    @Test
    void filterOrdersHaproxyAccepts() {
        // the cache before the compression filter; implicit declarations (the implicit compression filter comes last)
        valid(withBackend("filter cache c\nfilter compression\ncompression algo gzip\nhttp-request cache-use c\nhttp-response cache-store c", CACHE));
        valid(withBackend("compression algo gzip\nhttp-request cache-use c\nhttp-response cache-store c", CACHE));
        valid(withBackend("http-request cache-use c\nfilter cache c\nhttp-response cache-store c if TRUE", CACHE));
    }
}

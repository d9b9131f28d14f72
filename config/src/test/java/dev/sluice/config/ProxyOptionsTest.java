package dev.sluice.config;

import static dev.sluice.config.Configs.backendOf;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The options of {@link dev.sluice.config.model.ProxyOptions}, their defaults and how defaults sections pass them on. */
class ProxyOptionsTest {

    @Test
    void preferLastServer() {
        assertThat(backendOf("").options().preferLastServer()).isFalse();
        assertThat(backendOf("option prefer-last-server").options().preferLastServer()).isTrue();
        var c = Configs.valid(Configs.DEFAULTS.replace("defaults\n", "defaults\n    option prefer-last-server\n") + """
                frontend fe
                    bind :8080
                    default_backend a
                backend a
                backend b
                    no option prefer-last-server
                """);
        assertThat(Configs.proxy(c, "a").options().preferLastServer()).isTrue();
        assertThat(Configs.proxy(c, "b").options().preferLastServer()).isFalse();
        assertThat(Configs.proxy(c, "fe").options().preferLastServer()).isFalse();
    }
}

package dev.sluice.config;

import static dev.sluice.config.Configs.BACKEND_LINE;
import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.backendOf;
import static dev.sluice.config.Configs.inBackend;
import static dev.sluice.config.Configs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.ServerPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code pool-max-conn}, {@code pool-low-conn}, {@code pool-purge-delay} on servers: HAProxy 2.6's defaults, readings and messages. */
class ServerPoolKeywordsTest {

    private static ServerPool pool(String lines, int server) {
        return backendOf(lines).servers().get(server).pool();
    }

    @Test
    void optionsSetThePool() {
        assertThat(pool("server s1 10.0.0.1:80", 0)).isEqualTo(ServerPool.DEFAULT);
        assertThat(ServerPool.DEFAULT).isEqualTo(new ServerPool(-1, 0, -1));
        assertThat(pool("server s1 10.0.0.1:80 pool-max-conn 10 pool-low-conn 4 pool-purge-delay 2s", 0)).isEqualTo(new ServerPool(10, 4, 2000));
        assertThat(pool("server s1 10.0.0.1:80 pool-max-conn 0 pool-purge-delay 0", 0)).isEqualTo(new ServerPool(0, 0, 0));
        // read with atoi, as HAProxy does
        assertThat(pool("server s1 10.0.0.1:80 pool-max-conn x pool-low-conn 3y", 0)).isEqualTo(new ServerPool(0, 3, -1));
    }

    @Test
    void defaultServerPassesThemOn() {
        String lines = "default-server pool-purge-delay 1s pool-max-conn 3\nserver s1 10.0.0.1:80\nserver s2 10.0.0.2:80 pool-max-conn -1";
        assertThat(pool(lines, 0)).isEqualTo(new ServerPool(3, 0, 1000));
        assertThat(pool(lines, 1)).isEqualTo(new ServerPool(-1, 0, 1000));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "server s1 10.0.0.1:80 pool-max-conn -2|'pool-max-conn' must be >= -1",
        "server s1 10.0.0.1:80 pool-max-conn|'pool-max-conn' expects <value> as argument.",
        "server s1 10.0.0.1:80 pool-low-conn|'pool-low-conn' expects <value> as argument.",
        "server s1 10.0.0.1:80 pool-purge-delay|'pool-purge-delay' expects <value> as argument.",
        "server s1 10.0.0.1:80 pool-purge-delay x|'pool-purge-delay' : ",
        "default-server pool-max-conn -5|'pool-max-conn' must be >= -1",
    })
    void errorsSayWhatHaproxySays(String line, String message) {
        assertSingleError(parse(inBackend(line)), BACKEND_LINE, message);
    }
}

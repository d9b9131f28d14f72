package dev.sluice.proxy.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version and build date stamped into the jar at build time. */
final class Version {
    private Version() {
    }

    static final String VERSION;
    static final String DATE;

    static {
        Properties p = new Properties();
        try (InputStream in = Version.class.getResourceAsStream("/dev/sluice/proxy/version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // keep the defaults below
        }
        VERSION = p.getProperty("version", "dev");
        DATE = p.getProperty("date", "unknown");
    }
}

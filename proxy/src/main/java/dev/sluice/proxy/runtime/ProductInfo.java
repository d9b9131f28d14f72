package dev.sluice.proxy.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The product version and release date stamped into the jar, as {@code show info} prints them. */
final class ProductInfo {
    private ProductInfo() {
    }

    static final String VERSION;
    /** The build date as HAProxy writes its release date: yyyy/mm/dd. */
    static final String RELEASE_DATE;

    static {
        Properties p = new Properties();
        try (InputStream in = ProductInfo.class.getResourceAsStream("/dev/sluice/proxy/version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // keep the defaults below
        }
        VERSION = p.getProperty("version", "dev");
        String date = p.getProperty("date", "");
        RELEASE_DATE = date.length() >= 10 && date.charAt(4) == '-' ? date.substring(0, 10).replace('-', '/') : "unknown";
    }
}

package dev.sluice.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.JdkLoggerFactory;
import org.junit.jupiter.api.Test;

/** What {@code Main.main} sets before Netty starts: its JFR events off unless asked for, its logger named. */
class StartupPropertiesTest {
    private static final String JFR = "io.netty.jfr.enabled";

    @Test
    void nettysFlightRecorderEventsAreOffUnlessAskedFor() {
        String before = System.getProperty(JFR);
        try {
            System.clearProperty(JFR);
            Main.noNettyFlightRecorderEvents();
            assertThat(System.getProperty(JFR)).isEqualTo("false");
            // an operator's -Dio.netty.jfr.enabled=true stays
            System.setProperty(JFR, "true");
            Main.noNettyFlightRecorderEvents();
            assertThat(System.getProperty(JFR)).isEqualTo("true");
        } finally {
            if (before == null) {
                System.clearProperty(JFR);
            } else {
                System.setProperty(JFR, before);
            }
        }
    }

    @Test
    void nettyLogsThroughTheJdksLogging() {
        InternalLoggerFactory before = InternalLoggerFactory.getDefaultFactory();
        try {
            Main.nettyLogsToJdkLogging();
            assertThat(InternalLoggerFactory.getDefaultFactory()).isSameAs(JdkLoggerFactory.INSTANCE);
        } finally {
            InternalLoggerFactory.setDefaultFactory(before);
        }
    }
}

package dev.sluice.proxy.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** splice(2) between two pipes: bytes move, an empty source answers AGAIN, a closed one its end; pipe sizes. */
class SpliceCallsTest {
    @Test
    void movesBytesBetweenPipesAndTellsEmptyFromEnded() throws Exception {
        assumeTrue(SpliceCalls.available());
        SpliceCalls calls = new SpliceCalls();
        int[] a = calls.pipe(0);
        int[] b = calls.pipe(0);
        try {
            assertThat(calls.splice(a[0], b[1], 65536)).isEqualTo(SpliceCalls.AGAIN);
            try (FileOutputStream w = new FileOutputStream("/proc/self/fd/" + a[1])) {
                w.write("hello splice".getBytes(StandardCharsets.US_ASCII));
            }
            assertThat(calls.splice(a[0], b[1], 5)).isEqualTo(5);
            assertThat(calls.splice(a[0], b[1], 65536)).isEqualTo(7);
            try (FileInputStream r = new FileInputStream("/proc/self/fd/" + b[0])) {
                assertThat(new String(r.readNBytes(12), StandardCharsets.US_ASCII)).isEqualTo("hello splice");
            }
            SpliceCalls.close(a[1]);
            a[1] = -1;
            assertThat(calls.splice(a[0], b[1], 65536)).as("the writer is gone: end of stream").isZero();
        } finally {
            for (int fd : new int[] {a[0], a[1], b[0], b[1]}) {
                if (fd >= 0) {
                    SpliceCalls.close(fd);
                }
            }
        }
    }

    @Test
    void pipeSizeFollowsTunePipesize() throws Exception {
        assumeTrue(SpliceCalls.available());
        SpliceCalls calls = new SpliceCalls();
        int[] p = calls.pipe(256 * 1024);
        int[] d = calls.pipe(0);
        try {
            assertThat(calls.pipeSize(p[0])).isEqualTo(256 * 1024);
            assertThat(calls.pipeSize(d[1])).isEqualTo(65536);
        } finally {
            for (int fd : new int[] {p[0], p[1], d[0], d[1]}) {
                SpliceCalls.close(fd);
            }
        }
    }

    @Test
    void aFailedCallSaysWhy() {
        assumeTrue(SpliceCalls.available());
        SpliceCalls calls = new SpliceCalls();
        // neither end is a pipe, and -1 is no descriptor
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> calls.splice(-1, -1, 1)).isInstanceOf(SpliceCalls.Failure.class)
                .hasMessageContaining("errno 9");
    }
}

package dev.sluice.peers;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty's leak detector (PARANOID in tests) reports a buffer that was never
 * released. Registered for every test of the module through JUnit's extension auto-detection; it
 * installs a leak-detector factory that records reports instead of only logging them, and after each
 * class forces a GC and a few allocations so that pending reports surface.
 */
public final class LeakGuard implements AfterAllCallback {
    private static final ConcurrentLinkedQueue<String> LEAKS = new ConcurrentLinkedQueue<>();

    static {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        for (int round = 0; round < 3; round++) {
            System.gc();
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // the detector drains its reference queue when it tracks a new buffer
            for (int i = 0; i < 64; i++) {
                ByteBuf a = PooledByteBufAllocator.DEFAULT.directBuffer(8);
                a.release();
                ByteBuf b = UnpooledByteBufAllocator.DEFAULT.heapBuffer(8);
                b.release();
            }
        }
        List<String> found = new ArrayList<>();
        String s;
        while ((s = LEAKS.poll()) != null) {
            found.add(s);
        }
        if (!found.isEmpty()) {
            throw new AssertionError(found.size() + " buffer leak(s) reported after " + context.getDisplayName() + ":\n"
                    + String.join("\n----\n", found));
        }
    }

    private static final class RecordingFactory extends ResourceLeakDetectorFactory {
        @Override
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval, long maxActive) {
            return new ResourceLeakDetector<T>(resource, samplingInterval) {
                @Override
                protected void reportTracedLeak(String resourceType, String records) {
                    LEAKS.add("LEAK: " + resourceType + records);
                    super.reportTracedLeak(resourceType, records);
                }

                @Override
                protected void reportUntracedLeak(String resourceType) {
                    LEAKS.add("LEAK: " + resourceType + " (untraced)");
                    super.reportUntracedLeak(resourceType);
                }

                @Override
                protected boolean needReport() {
                    return true;
                }
            };
        }
    }
}

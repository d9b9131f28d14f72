package dev.sluice.proxy.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * {@code cpu-map}: pins the calling thread to a set of CPUs with Linux's {@code sched_setaffinity(0, ...)} (0: the calling
 * thread), called through the JDK's foreign function interface. {@link #pinning} wraps the event loops' thread factory so
 * that the n-th thread it makes pins itself to the n-th set before it runs its loop. A refused call is reported, not
 * fatal, and the thread runs unpinned.
 */
public final class CpuAffinity {
    private CpuAffinity() {
    }

    /** glibc's cpu_set_t: 1024 bits. */
    private static final int CPU_SET_BYTES = 128;
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final class Calls {
        static final Linker LINKER = Linker.nativeLinker();
        static final MethodHandle SET = LINKER.downcallHandle(LINKER.defaultLookup().find("sched_setaffinity").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS),
                Linker.Option.captureCallState("errno"));
        static final MethodHandle STRERROR = LINKER.downcallHandle(LINKER.defaultLookup().find("strerror").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    }

    /** Pins the calling thread to {@code cpus}; returns null, or why it could not (errno's text). */
    public static String pinCurrentThread(BitSet cpus) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment set = arena.allocate(CPU_SET_BYTES);
            byte[] bits = cpus.toByteArray();
            MemorySegment.copy(bits, 0, set, ValueLayout.JAVA_BYTE, 0, Math.min(bits.length, CPU_SET_BYTES));
            MemorySegment state = arena.allocate(CALL_STATE);
            int rc = (int) Calls.SET.invokeExact(state, 0, (long) CPU_SET_BYTES, set);
            if (rc == 0) {
                return null;
            }
            int errno = (int) ERRNO.get(state, 0L);
            MemorySegment text = (MemorySegment) Calls.STRERROR.invokeExact(errno);
            return text.reinterpret(256).getString(0);
        } catch (Throwable e) {
            return e.toString();
        }
    }

    /**
     * {@code factory}'s threads, the n-th one (from 0) pinned to {@code sets.get(n)} when it starts (an empty set or a
     * thread past the list: not pinned); a refusal goes to {@code problems} with the CPUs asked for.
     */
    public static ThreadFactory pinning(ThreadFactory factory, List<BitSet> sets, Consumer<String> problems) {
        AtomicInteger next = new AtomicInteger();
        return r -> {
            int n = next.getAndIncrement();
            BitSet cpus = n < sets.size() ? sets.get(n) : null;
            if (cpus == null || cpus.isEmpty()) {
                return factory.newThread(r);
            }
            return factory.newThread(() -> {
                String why = pinCurrentThread(cpus);
                if (why != null) {
                    problems.accept("cpu-map: cannot pin thread " + (n + 1) + " to CPUs " + cpus + ": " + why);
                }
                r.run();
            });
        };
    }
}

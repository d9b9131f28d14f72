package dev.sluice.proxy.cli;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Points file descriptors 0, 1 and 2 at /dev/null, as a daemon does once it runs: otherwise the
 * terminal or pipe that started it stays held open (a caller reading its output would wait forever).
 * Uses the C library through the foreign-function API.
 */
final class DetachedStdio {
    private DetachedStdio() {
    }

    private static final int O_RDWR = 2;

    static void detach() {
        try {
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            MethodHandle open = linker.downcallHandle(libc.find("open").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT), Linker.Option.firstVariadicArg(2));
            MethodHandle dup2 = linker.downcallHandle(libc.find("dup2").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
            MethodHandle close = linker.downcallHandle(libc.find("close").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
            try (Arena arena = Arena.ofConfined()) {
                int fd = (int) open.invokeExact(arena.allocateFrom("/dev/null"), O_RDWR);
                if (fd < 0) {
                    return;
                }
                for (int target = 0; target <= 2; target++) {
                    int r = (int) dup2.invokeExact(fd, target);
                    if (r < 0) {
                        break;
                    }
                }
                if (fd > 2) {
                    int r = (int) close.invokeExact(fd);
                    if (r < 0) {
                        return;
                    }
                }
            }
        } catch (Throwable t) {
            // stay attached: output keeps going where it went
        }
    }
}

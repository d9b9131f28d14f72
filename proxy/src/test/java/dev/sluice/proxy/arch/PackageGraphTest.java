package dev.sluice.proxy.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package graph of {@code proxy}'s main sources, drawn from what each file names of another package (imports,
 * wildcard imports and fully-qualified names): it has no cycle, and the layers that everything else builds on
 * depend on nothing above them. A failure names the packages of the cycle and the references that make it.
 */
class PackageGraphTest {
    private static final String ROOT = "dev.sluice.proxy";
    private static final Path SOURCES = Path.of("src/main/java/dev/sluice/proxy");
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    /** {@code dev.sluice.proxy.x.y.Name} or {@code import dev.sluice.proxy.x.*;}: the package part is group 1. */
    private static final Pattern REFERENCE = Pattern.compile("\\b(dev\\.sluice\\.proxy(?:\\.[a-z]\\w*)*)\\.(?:[A-Z]\\w*|\\*)");

    /** package -> packages it references -> the files that do. */
    private static final Map<String, Map<String, Set<String>>> GRAPH = new TreeMap<>();

    @BeforeAll
    static void draw() throws IOException {
        assertThat(SOURCES).as("run from the proxy module").isDirectory();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String text = Files.readString(f);
                Matcher pm = PACKAGE.matcher(text);
                assertThat(pm.find()).as(f + " has a package line").isTrue();
                String pkg = pm.group(1);
                Map<String, Set<String>> out = GRAPH.computeIfAbsent(pkg, k -> new TreeMap<>());
                Matcher m = REFERENCE.matcher(text);
                while (m.find()) {
                    if (!m.group(1).equals(pkg)) {
                        out.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(f.getFileName().toString());
                    }
                }
            }
        }
        assertThat(GRAPH).as("packages found").containsKeys(ROOT + ".http", ROOT + ".stream", ROOT + ".runtime");
    }

    @Test
    void noPackageCycle() {
        List<String> cycles = new ArrayList<>();
        for (List<String> scc : stronglyConnected()) {
            if (scc.size() > 1) {
                StringBuilder b = new StringBuilder(String.join(" ", scc)).append(':');
                for (String a : scc) {
                    for (String z : scc) {
                        Set<String> files = GRAPH.get(a).get(z);
                        if (files != null) {
                            b.append("\n  ").append(a).append(" -> ").append(z).append(" in ").append(files);
                        }
                    }
                }
                cycles.add(b.toString());
            }
        }
        assertThat(cycles).as("package cycles").isEmpty();
    }

    @Test
    void theMessageModelDependsOnNothingAboveIt() {
        assertThat(references(ROOT + ".http")).as("http").isEmpty();
        assertThat(references(ROOT + ".http.h1")).as("http.h1").containsOnly(ROOT + ".http");
    }

    @Test
    void theLowerLayersDoNotReachUp() {
        for (String low : List.of("transport", "listener", "stats", "tls", "diag", "auth", "metrics")) {
            assertThat(references(ROOT + "." + low)).as(low).allMatch(p -> Set.of(ROOT + ".transport", ROOT + ".diag").contains(p));
        }
        // the backend sees servers and their connections, never the streams that use them, nor how checks run
        assertThat(references(ROOT + ".backend")).as("backend").doesNotContain(ROOT + ".stream", ROOT + ".check", ROOT + ".runtime");
        // the request path does not know the protocols that carry it, nor the runtime that assembles it
        assertThat(references(ROOT + ".stream")).as("stream").doesNotContain(ROOT + ".h1", ROOT + ".h2", ROOT + ".h3", ROOT + ".tcp",
                ROOT + ".runtime");
        // layer 4 sits beside the HTTP protocols: it knows none of them, nor the runtime
        assertThat(references(ROOT + ".tcp")).as("tcp").doesNotContain(ROOT + ".h1", ROOT + ".h2", ROOT + ".h3", ROOT + ".runtime");
    }

    @Test
    void aCycleIsFound() {
        // the check itself: a two-package loop added to a copy of the graph is reported
        Map<String, Map<String, Set<String>>> saved = new TreeMap<>(GRAPH);
        try {
            GRAPH.put("x.a", new TreeMap<>(Map.of("x.b", Set.of("A.java"))));
            GRAPH.put("x.b", new TreeMap<>(Map.of("x.a", Set.of("B.java"))));
            assertThat(stronglyConnected()).anyMatch(scc -> scc.containsAll(List.of("x.a", "x.b")));
        } finally {
            GRAPH.clear();
            GRAPH.putAll(saved);
        }
    }

    private static Set<String> references(String pkg) {
        assertThat(GRAPH).containsKey(pkg);
        return GRAPH.get(pkg).keySet();
    }

    /** Tarjan's strongly connected components of the graph. */
    private static List<List<String>> stronglyConnected() {
        Map<String, Integer> index = new TreeMap<>();
        Map<String, Integer> low = new TreeMap<>();
        List<String> stack = new ArrayList<>();
        Set<String> onStack = new TreeSet<>();
        List<List<String>> out = new ArrayList<>();
        for (String v : GRAPH.keySet()) {
            if (!index.containsKey(v)) {
                visit(v, index, low, stack, onStack, out);
            }
        }
        return out;
    }

    private static void visit(String v, Map<String, Integer> index, Map<String, Integer> low, List<String> stack, Set<String> onStack,
            List<List<String>> out) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.add(v);
        onStack.add(v);
        for (String w : GRAPH.getOrDefault(v, Map.of()).keySet()) {
            if (!index.containsKey(w)) {
                visit(w, index, low, stack, onStack, out);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            List<String> scc = new ArrayList<>();
            String w;
            do {
                w = stack.removeLast();
                onStack.remove(w);
                scc.add(w);
            } while (!w.equals(v));
            out.add(scc);
        }
    }
}

package dev.sluice.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a master compares at a reload to choose between a reload in place and a new worker. */
class WorkerProgramTest {

    @TempDir
    Path dir;

    /** A fake JDK (bin/java, lib/server/libjvm.so, lib/modules) and a jar in the temporary directory. */
    private Path jdk() throws Exception {
        Path home = dir.resolve("jdk");
        Files.createDirectories(home.resolve("bin"));
        Files.createDirectories(home.resolve("lib/server"));
        Files.writeString(home.resolve("bin/java"), "java");
        Files.writeString(home.resolve("lib/server/libjvm.so"), "jvm");
        Files.writeString(home.resolve("lib/modules"), "modules");
        return home.resolve("bin/java");
    }

    private Path jar(String content) throws Exception {
        Path jar = dir.resolve("sluice.jar");
        Files.writeString(jar, content);
        return jar;
    }

    private static void shiftTime(Path p, long millis) throws Exception {
        Files.setLastModifiedTime(p, FileTime.from(Files.getLastModifiedTime(p).toInstant().plusMillis(millis)));
    }

    @Test
    void theWorkersCommandIsReadFromTheLaunchersVariableOrIsThisJvms() {
        WorkerProgram p = WorkerProgram.forWorkers(new String[] {"-W", "-f", "x.cfg"}, "/jdk/bin/java\n-Xmx71m\n-Xss512k\n-jar\n/opt/sluice.jar\n");
        assertThat(p.jvm()).containsExactly("/jdk/bin/java", "-Xmx71m", "-Xss512k", "-jar", "/opt/sluice.jar");
        assertThat(p.java()).isEqualTo("/jdk/bin/java");
        assertThat(p.options()).containsExactly("-Xmx71m", "-Xss512k");
        assertThat(p.classPath()).containsExactly(Path.of("/opt/sluice.jar"));
        // without it, this JVM's own command (here: the test JVM's, no proxy argument at its end)
        WorkerProgram own = WorkerProgram.forWorkers(new String[0], " ");
        assertThat(own).isNotNull();
        assertThat(own.java()).isEqualTo(ProcessHandle.current().info().command().orElseThrow());
    }

    @Test
    void aClassPathAndAMainClassAreReadAsTheJvmReadsThem() {
        WorkerProgram cp = new WorkerProgram(List.of("java", "-cp", "/a/x.jar:/a/classes", "-Dk=v", "dev.sluice.proxy.cli.Main"));
        assertThat(cp.classPath()).containsExactly(Path.of("/a/x.jar"), Path.of("/a/classes"));
        assertThat(cp.options()).containsExactly("-cp", "/a/x.jar:/a/classes", "-Dk=v");
        WorkerProgram eq = new WorkerProgram(List.of("java", "--class-path=/b/y.jar", "Main"));
        assertThat(eq.classPath()).containsExactly(Path.of("/b/y.jar"));
        // -jar wins over a class path; the class path's entries are taken as absolute
        WorkerProgram both = new WorkerProgram(List.of("java", "-cp", "/a/x.jar", "-jar", "rel.jar"));
        assertThat(both.classPath()).containsExactly(Path.of("rel.jar").toAbsolutePath());
    }

    @Test
    void anUnchangedProgramIsTheSameAndATouchedOrRewrittenJarIsNot() throws Exception {
        Path jar = jar("jar v1");
        WorkerProgram p = new WorkerProgram(List.of(jdk().toString(), "-Xmx8m", "-jar", jar.toString()));
        WorkerProgram.Fingerprint start = p.fingerprint();
        assertThat(start.classPath()).singleElement().satisfies(s -> assertThat(s.crc()).isEqualTo(WorkerProgram.crc(jar)).isNotNegative());
        assertThat(p.changedSince(start)).isNull();

        // a touch: another time
        shiftTime(jar, 2000);
        assertThat(p.changedSince(start)).isEqualTo("the jar " + jar + " changed");
        shiftTime(jar, -2000);
        assertThat(p.changedSince(start)).isNull();

        // other bytes of the same size at the same time: the hash tells
        FileTime t = Files.getLastModifiedTime(jar);
        Files.writeString(jar, "jar v2");
        Files.setLastModifiedTime(jar, t);
        assertThat(p.changedSince(start)).isEqualTo("the jar " + jar + " changed");

        // the same bytes put back under the same time (a copy that keeps times): the same program
        Path copy = dir.resolve("copy.jar");
        Files.writeString(copy, "jar v1");
        Files.setLastModifiedTime(copy, t);
        Files.move(copy, jar, StandardCopyOption.REPLACE_EXISTING);
        assertThat(p.changedSince(start)).isNull();

        // gone
        Files.delete(jar);
        assertThat(p.changedSince(start)).isEqualTo("the jar " + jar + " changed");
    }

    @Test
    void anUpgradedJavaRuntimeIsAnotherProgram() throws Exception {
        Path java = jdk();
        Path jar = jar("jar");
        WorkerProgram p = new WorkerProgram(List.of(java.toString(), "-jar", jar.toString()));
        WorkerProgram.Fingerprint start = p.fingerprint();
        assertThat(start.runtime()).extracting(WorkerProgram.Stamp::path).containsExactly(java.toRealPath(),
                java.toRealPath().getParent().getParent().resolve("lib/server/libjvm.so"), java.toRealPath().getParent().getParent().resolve("lib/modules"));
        shiftTime(java.getParent().getParent().resolve("lib/server/libjvm.so"), 5000);
        assertThat(p.changedSince(start)).isEqualTo("the Java runtime " + java.toRealPath() + " changed");
    }

    @Test
    void otherOptionsOrAnotherClassPathAreAnotherProgram() throws Exception {
        Path java = jdk();
        Path jar = jar("jar");
        WorkerProgram.Fingerprint start = new WorkerProgram(List.of(java.toString(), "-Xmx8m", "-jar", jar.toString())).fingerprint();
        assertThat(new WorkerProgram(List.of(java.toString(), "-Xmx9m", "-jar", jar.toString())).changedSince(start))
                .isEqualTo("the JVM's options changed");
        Path other = dir.resolve("other.jar");
        Files.copy(jar, other, StandardCopyOption.COPY_ATTRIBUTES);
        assertThat(new WorkerProgram(List.of(java.toString(), "-Xmx8m", "-jar", other.toString())).changedSince(start))
                .isEqualTo("the class path changed");
    }

    @Test
    void aClassDirectoryChangesWithAnyOfItsFiles() throws Exception {
        Path classes = dir.resolve("classes");
        Files.createDirectories(classes.resolve("dev/sluice"));
        Files.writeString(classes.resolve("dev/sluice/A.class"), "a");
        WorkerProgram p = new WorkerProgram(List.of(jdk().toString(), "-cp", classes.toString(), "dev.sluice.Main"));
        WorkerProgram.Fingerprint start = p.fingerprint();
        assertThat(p.changedSince(start)).isNull();
        Files.writeString(classes.resolve("dev/sluice/B.class"), "");
        assertThat(p.changedSince(start)).isEqualTo(classes + " changed");
    }
}

package dev.sluice.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Collects diagnostics during one parse: problems are recorded, never thrown, so a single run reports
 * all of them. Not thread-safe; owned by the parse that creates it.
 */
public final class Diagnostics {
    private final List<Diagnostic> list = new ArrayList<>();

    public void error(SourceRef at, String message) {
        add(at, Diagnostic.Severity.ERROR, message);
    }

    public void warning(SourceRef at, String message) {
        add(at, Diagnostic.Severity.WARNING, message);
    }

    public void notice(SourceRef at, String message) {
        add(at, Diagnostic.Severity.NOTICE, message);
    }

    public void diag(SourceRef at, String message) {
        add(at, Diagnostic.Severity.DIAG, message);
    }

    /** A problem that belongs to no particular line. */
    public void error(String file, String message) {
        list.add(new Diagnostic(file, 0, Diagnostic.Severity.ERROR, message));
    }

    private void add(SourceRef at, Diagnostic.Severity severity, String message) {
        list.add(new Diagnostic(at == null ? null : at.file(), at == null ? 0 : at.line(), severity, message));
    }

    public boolean hasErrors() {
        for (Diagnostic d : list) {
            if (d.isError()) {
                return true;
            }
        }
        return false;
    }

    public int errorCount() {
        int n = 0;
        for (Diagnostic d : list) {
            if (d.isError()) {
                n++;
            }
        }
        return n;
    }

    public List<Diagnostic> list() {
        return Collections.unmodifiableList(list);
    }
}

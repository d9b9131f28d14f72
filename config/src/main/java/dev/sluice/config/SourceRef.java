package dev.sluice.config;

/** Where a configuration element was declared: file name and 1-based line number. */
public record SourceRef(String file, int line) {

    @Override
    public String toString() {
        return file + ":" + line;
    }
}

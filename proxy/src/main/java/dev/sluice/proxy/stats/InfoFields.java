package dev.sluice.proxy.stats;

import java.util.List;
import java.util.Map;

/**
 * {@code show info}: HAProxy 2.6's process fields, in its order and with its positions (45, 46 and 51,
 * the zlib and description fields of other builds, are absent there too), tags, types and descriptions,
 * printed as {@code Name: value} lines, as {@code typed} lines or as {@code json}.
 */
public final class InfoFields {
    private InfoFields() {
    }

    /** One field: position, name, HAProxy's origin/nature/scope tags, value type, description. */
    /** {@code optional}: left out of the output when it has no value (HAProxy prints {@code description} only when set). */
    public record Field(int pos, String name, String tags, String type, String description, boolean optional) {
        public Field(int pos, String name, String tags, String type, String description) {
            this(pos, name, tags, type, description, false);
        }
    }

    public static final List<Field> FIELDS = List.of(
            new Field(0, "Name", "POS", "str", "Product name"),
            new Field(1, "Version", "POS", "str", "Product version"),
            new Field(2, "Release_date", "POS", "str", "Date of latest source code update"),
            new Field(3, "Nbthread", "CGS", "u32", "Number of started threads (global.nbthread)"),
            new Field(4, "Nbproc", "CGS", "u32", "Number of started worker processes (historical, always 1)"),
            new Field(5, "Process_num", "KGP", "u32", "Relative worker process number (1)"),
            new Field(6, "Pid", "SGP", "u32", "This worker process identifier for the system"),
            new Field(7, "Uptime", "MDP", "str", "How long ago this worker process was started (days+hours+minutes+seconds)"),
            new Field(8, "Uptime_sec", "MDP", "u32", "How long ago this worker process was started (seconds)"),
            new Field(9, "Memmax_MB", "CLP", "u32", "Worker process's hard limit on memory usage in MB (-m on command line)"),
            new Field(10, "PoolAlloc_MB", "MGP", "u32", "Amount of memory allocated in pools (in MB)"),
            new Field(11, "PoolUsed_MB", "MGP", "u32", "Amount of pool memory currently used (in MB)"),
            new Field(12, "PoolFailed", "MCP", "u32", "Number of failed pool allocations since this worker was started"),
            new Field(13, "Ulimit-n", "CLP", "u32", "Hard limit on the number of per-process file descriptors"),
            new Field(14, "Maxsock", "CLP", "u32", "Hard limit on the number of per-process sockets"),
            new Field(15, "Maxconn", "CLP", "u32", "Hard limit on the number of per-process connections (configured or imposed by Ulimit-n)"),
            new Field(16, "Hard_maxconn", "CLP", "u32", "Hard limit on the number of per-process connections (imposed by Memmax_MB or Ulimit-n)"),
            new Field(17, "CurrConns", "MGP", "u32", "Current number of connections on this worker process"),
            new Field(18, "CumConns", "MCP", "u32", "Total number of connections on this worker process since started"),
            new Field(19, "CumReq", "MCP", "u32", "Total number of requests on this worker process since started"),
            new Field(20, "MaxSslConns", "MMP", "u32", "Hard limit on the number of per-process SSL endpoints (front+back), 0=unlimited"),
            new Field(21, "CurrSslConns", "MGP", "u32", "Current number of SSL endpoints on this worker process (front+back)"),
            new Field(22, "CumSslConns", "MCP", "u32", "Total number of SSL endpoints on this worker process since started (front+back)"),
            new Field(23, "Maxpipes", "CLP", "u32", "Hard limit on the number of pipes for splicing, 0=unlimited"),
            new Field(24, "PipesUsed", "MGP", "u32", "Current number of pipes in use in this worker process"),
            new Field(25, "PipesFree", "MGP", "u32", "Current number of allocated and available pipes in this worker process"),
            new Field(26, "ConnRate", "MRP", "u32", "Number of front connections created on this worker process over the last second"),
            new Field(27, "ConnRateLimit", "CLP", "u32", "Hard limit for ConnRate (global.maxconnrate)"),
            new Field(28, "MaxConnRate", "MMP", "u32", "Highest ConnRate reached on this worker process since started (in connections per second)"),
            new Field(29, "SessRate", "MRP", "u32", "Number of sessions created on this worker process over the last second"),
            new Field(30, "SessRateLimit", "CLP", "u32", "Hard limit for SessRate (global.maxsessrate)"),
            new Field(31, "MaxSessRate", "MRP", "u32", "Highest SessRate reached on this worker process since started (in sessions per second)"),
            new Field(32, "SslRate", "MRP", "u32", "Number of SSL connections created on this worker process over the last second"),
            new Field(33, "SslRateLimit", "CLP", "u32", "Hard limit for SslRate (global.maxsslrate)"),
            new Field(34, "MaxSslRate", "MMP", "u32", "Highest SslRate reached on this worker process since started (in connections per second)"),
            new Field(35, "SslFrontendKeyRate", "MGP", "u32", "Number of SSL keys created on frontends in this worker process over the last second"),
            new Field(36, "SslFrontendMaxKeyRate", "MMP", "u32", "Highest SslFrontendKeyRate reached on this worker process since started (in SSL keys per second)"),
            new Field(37, "SslFrontendSessionReuse_pct", "MGP", "u32", "Percent of frontend SSL connections which did not require a new key"),
            new Field(38, "SslBackendKeyRate", "MRP", "u32", "Number of SSL keys created on backends in this worker process over the last second"),
            new Field(39, "SslBackendMaxKeyRate", "MMP", "u32", "Highest SslBackendKeyRate reached on this worker process since started (in SSL keys per second)"),
            new Field(40, "SslCacheLookups", "MCP", "u32", "Total number of SSL session ID lookups in the SSL session cache on this worker since started"),
            new Field(41, "SslCacheMisses", "MCP", "u32", "Total number of SSL session ID lookups that didn't find a session in the SSL session cache on this worker since started"),
            new Field(42, "CompressBpsIn", "MRP", "u32", "Number of bytes submitted to the HTTP compressor in this worker process over the last second"),
            new Field(43, "CompressBpsOut", "MRP", "u32", "Number of bytes emitted by the HTTP compressor in this worker process over the last second"),
            new Field(44, "CompressBpsRateLim", "CLP", "u32", "Limit of CompressBpsOut beyond which HTTP compression is automatically disabled"),
            new Field(47, "Tasks", "MGP", "u32", "Total number of tasks in the current worker process (active + sleeping)"),
            new Field(48, "Run_queue", "MGP", "u32", "Total number of active tasks+tasklets in the current worker process"),
            new Field(49, "Idle_pct", "MaP", "u32", "Percentage of last second spent waiting in the current worker thread"),
            new Field(50, "node", "COS", "str", "Node name (global.node)"),
            new Field(51, "description", "COS", "str", "Node description (global.description)", true),
            new Field(52, "Stopping", "MGP", "u32", "1 if the worker process is currently stopping, otherwise zero"),
            new Field(53, "Jobs", "MGP", "u32", "Current number of active jobs on the current worker process (frontend connections, master connections, listeners)"),
            new Field(54, "Unstoppable Jobs", "MGP", "u32", "Current number of unstoppable jobs on the current worker process (master connections)"),
            new Field(55, "Listeners", "MGP", "u32", "Current number of active listeners on the current worker process"),
            new Field(56, "ActivePeers", "MGP", "u32", "Current number of verified active peers connections on the current worker process"),
            new Field(57, "ConnectedPeers", "MGP", "u32", "Current number of peers having passed the connection step on the current worker process"),
            new Field(58, "DroppedLogs", "MGP", "u32", "Total number of dropped logs for current worker process since started"),
            new Field(59, "BusyPolling", "MGP", "u32", "1 if busy-polling is currently in use on the worker process, otherwise zero (config.busy-polling)"),
            new Field(60, "FailedResolutions", "MGP", "u32", "Total number of failed DNS resolutions in current worker process since started"),
            new Field(61, "TotalBytesOut", "MGP", "u64", "Total number of bytes emitted by current worker process since started"),
            new Field(62, "TotalSplicdedBytesOut", "MGP", "u64", "Total number of bytes emitted by current worker process through a kernel pipe since started"),
            new Field(63, "BytesOutRate", "MRP", "u64", "Number of bytes emitted by current worker process over the last second"),
            new Field(64, "DebugCommandsIssued", "MGP", "u32", "Number of debug commands issued on this process (anything > 0 is unsafe)"),
            new Field(65, "CumRecvLogs", "MCP", "u32", "Total number of log messages received by log-forwarding listeners on this worker process since started"),
            new Field(66, "Build info", "POS", "str", "Build info"),
            new Field(67, "Memmax_bytes", "CLP", "u32", "Worker process's hard limit on memory usage in byes (-m on command line)"),
            new Field(68, "PoolAlloc_bytes", "MGP", "u64", "Amount of memory allocated in pools (in bytes)"),
            new Field(69, "PoolUsed_bytes", "MGP", "u64", "Amount of pool memory currently used (in bytes)"),
            new Field(70, "Start_time_sec", "MDP", "u32", "Start time in seconds"),
            new Field(71, "Tainted", "SGP", "str", "Experimental features used")
    );

    /** The output formats of {@code show info}. */
    public enum Format {
        PLAIN, TYPED, JSON
    }

    /**
     * Renders every field with its value from {@code values} (by field name; a missing value prints as
     * HAProxy prints an unset one: empty). {@code desc} adds the descriptions to the typed form.
     */
    public static String render(Map<String, Object> values, Format format, boolean desc) {
        StringBuilder out = new StringBuilder();
        if (format == Format.JSON) {
            out.append('[');
        }
        boolean first = true;
        for (Field f : FIELDS) {
            Object v = values.get(f.name());
            if (v == null && f.optional()) {
                continue;
            }
            String text = v == null ? "" : v.toString();
            switch (format) {
                case PLAIN -> out.append(f.name()).append(": ").append(text).append('\n');
                case TYPED -> {
                    out.append(f.pos()).append('.').append(f.name()).append(".1:").append(f.tags()).append(':').append(f.type()).append(':')
                            .append(text);
                    if (desc) {
                        out.append(":\"").append(f.description()).append('"');
                    }
                    out.append('\n');
                }
                case JSON -> {
                    if (!first) {
                        out.append(',');
                    }
                    out.append("{\"field\":{\"pos\":").append(f.pos()).append(",\"name\":\"").append(json(f.name()))
                            .append("\"},\"processNum\":1,\"tags\":{\"origin\":\"").append(origin(f.tags().charAt(0)))
                            .append("\",\"nature\":\"").append(nature(f.tags().charAt(1))).append("\",\"scope\":\"")
                            .append(scope(f.tags().charAt(2))).append("\"},\"value\":{\"type\":\"").append(f.type()).append("\",\"value\":");
                    if (f.type().equals("str")) {
                        out.append('"').append(json(text)).append('"');
                    } else {
                        out.append(text.isEmpty() ? "0" : text);
                    }
                    out.append("}}");
                }
                default -> throw new IllegalStateException();
            }
            first = false;
        }
        if (format == Format.JSON) {
            out.append("]\n");
        }
        return out.toString();
    }

    static String origin(char c) {
        return switch (c) {
            case 'M' -> "Metric";
            case 'S' -> "Status";
            case 'K' -> "Key";
            case 'C' -> "Config";
            case 'P' -> "Product";
            default -> "Unknown";
        };
    }

    static String nature(char c) {
        return switch (c) {
            case 'A' -> "Age";
            case 'a' -> "Avg";
            case 'C' -> "Counter";
            case 'D' -> "Duration";
            case 'G' -> "Gauge";
            case 'L' -> "Limit";
            case 'M' -> "Max";
            case 'm' -> "Min";
            case 'N' -> "Name";
            case 'O' -> "Output";
            case 'R' -> "Rate";
            case 'T' -> "Time";
            default -> "Unknown";
        };
    }

    static String scope(char c) {
        return switch (c) {
            case 'P' -> "Process";
            case 'S' -> "Service";
            case 's' -> "System";
            case 'C' -> "Cluster";
            default -> "Unknown";
        };
    }

    static String json(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}

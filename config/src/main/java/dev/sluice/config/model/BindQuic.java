package dev.sluice.config.model;

/**
 * The QUIC options of a {@code quic4@}/{@code quic6@} bind line: {@code quic-force-retry} (every new
 * connection must first prove its address with a Retry token, whatever the number of half-open
 * connections) and {@code quic-cc-algo} (the congestion controller of its connections).
 */
public record BindQuic(boolean forceRetry, CongestionControl congestionControl) {

    public static final BindQuic DEFAULT = new BindQuic(false, CongestionControl.CUBIC);

    /** The congestion controllers of Netty's QUIC codec, by HAProxy's {@code quic-cc-algo} names. */
    public enum CongestionControl {
        CUBIC("cubic"), NEWRENO("newreno"), BBR("bbr");

        private final String keyword;

        CongestionControl(String keyword) {
            this.keyword = keyword;
        }

        public String keyword() {
            return keyword;
        }

        /** The controller named {@code s}, or null. */
        public static CongestionControl of(String s) {
            for (CongestionControl c : values()) {
                if (c.keyword.equals(s)) {
                    return c;
                }
            }
            return null;
        }
    }
}

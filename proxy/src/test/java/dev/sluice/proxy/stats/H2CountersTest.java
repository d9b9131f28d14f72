package dev.sluice.proxy.stats;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class H2CountersTest {

    @Test
    void framesAddUpAndErrorsAndFloodsCountApart() {
        H2Counters c = new H2Counters();
        c.addFrames(3, 0, 2, 1, 0);
        c.addFrames(1, 5, 0, 0, 1);
        c.add(H2Counters.Column.GOAWAY_RESP);
        c.flood(H2Counters.Flood.RAPID_RESET);
        c.flood(H2Counters.Flood.RAPID_RESET);
        c.flood(H2Counters.Flood.EMPTY_DATA);
        assertThat(c.get(H2Counters.Column.HEADERS_RCVD)).isEqualTo(4);
        assertThat(c.get(H2Counters.Column.DATA_RCVD)).isEqualTo(5);
        assertThat(c.get(H2Counters.Column.SETTINGS_RCVD)).isEqualTo(2);
        assertThat(c.get(H2Counters.Column.RST_STREAM_RCVD)).isEqualTo(1);
        assertThat(c.get(H2Counters.Column.GOAWAY_RCVD)).isEqualTo(1);
        assertThat(c.get(H2Counters.Column.GOAWAY_RESP)).isEqualTo(1);
        assertThat(c.get(H2Counters.Column.CONN_PROTO_ERR)).isZero();
        assertThat(c.get(H2Counters.Flood.RAPID_RESET)).isEqualTo(2);
        assertThat(c.get(H2Counters.Flood.EMPTY_DATA)).isEqualTo(1);
        assertThat(c.get(H2Counters.Flood.CONTROL_FRAMES)).isZero();
        c.clear();
        assertThat(Arrays.stream(H2Counters.Column.values()).mapToLong(c::get).sum()).isZero();
        assertThat(Arrays.stream(H2Counters.Flood.values()).mapToLong(c::get).sum()).isZero();
    }

    @Test
    void columnsAreHaproxysAndInItsOrder() {
        assertThat(Arrays.stream(H2Counters.Column.values()).map(c -> c.column().field()).toList()).containsExactly("h2_headers_rcvd",
                "h2_data_rcvd", "h2_settings_rcvd", "h2_rst_stream_rcvd", "h2_goaway_rcvd", "h2_detected_conn_protocol_errors",
                "h2_detected_strm_protocol_errors", "h2_rst_stream_resp", "h2_goaway_resp");
        assertThat(H2Counters.Column.GOAWAY_RESP.column().ordinal() - H2Counters.Column.HEADERS_RCVD.column().ordinal()).isEqualTo(8);
    }
}

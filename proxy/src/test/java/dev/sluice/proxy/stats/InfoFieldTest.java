package dev.sluice.proxy.stats;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

class InfoFieldTest {
    @Test
    void positionsAreHaproxysWithTheZlibFieldsLeftOut() {
        int[] pos = Arrays.stream(InfoField.values()).mapToInt(InfoField::pos).toArray();
        assertThat(pos).startsWith(0, 1, 2).doesNotContain(45, 46).endsWith(70, 71, 72, 73, 74).isSorted().doesNotHaveDuplicates();
        // Sluice's own fields come after HAProxy's last one, shown only once the process reloaded in place
        assertThat(InfoField.RELOADS.pos()).isEqualTo(72);
        assertThat(InfoField.COMPRESS_BPS_RATE_LIM.pos()).isEqualTo(44);
        assertThat(InfoField.TASKS.pos()).isEqualTo(47);
        assertThat(InfoField.TAINTED.pos()).isEqualTo(71);
    }

    @Test
    void processFamiliesAreNamedAsHaproxysExporterNamesThem() {
        List<InfoField.Prometheus> families = Arrays.stream(InfoField.values()).map(InfoField::prometheus).filter(Objects::nonNull).toList();
        assertThat(families).extracting(InfoField.Prometheus::name).allMatch(n -> n.startsWith("haproxy_process_")).doesNotHaveDuplicates();
        // a counter's name ends with _total (promtool refuses one that does not), a gauge's does not
        assertThat(families).filteredOn(InfoField.Prometheus::counter).extracting(InfoField.Prometheus::name).allMatch(n -> n.endsWith("_total"));
        assertThat(InfoField.BUILD_INFO.prometheus()).isEqualTo(new InfoField.Prometheus("haproxy_process_build_info", false, "version"));
        assertThat(InfoField.FAILED_RESOLUTIONS.prometheus()).isNull();
    }

    @Test
    void aFieldWithoutValueIsLeftOutOfEveryFormat() {
        Map<InfoField, Object> values = new EnumMap<>(InfoField.class);
        values.put(InfoField.NAME, "Sl\"uice");
        values.put(InfoField.TOTAL_BYTES_OUT, 12L);
        assertThat(InfoFields.render(values, InfoFields.Format.PLAIN, false)).isEqualTo("Name: Sl\"uice\nTotalBytesOut: 12\n");
        assertThat(InfoFields.render(values, InfoFields.Format.TYPED, true)).isEqualTo("0.Name.1:POS:str:Sl\"uice:\"Product name\"\n"
                + "61.TotalBytesOut.1:MGP:u64:12:\"Total number of bytes emitted by current worker process since started\"\n");
        assertThat(InfoFields.render(values, InfoFields.Format.JSON, false)).isEqualTo("[{\"field\":{\"pos\":0,\"name\":\"Name\"},\"processNum\":1,"
                + "\"tags\":{\"origin\":\"Product\",\"nature\":\"Output\",\"scope\":\"Service\"},\"value\":{\"type\":\"str\",\"value\":\"Sl\\\"uice\"}},"
                + "{\"field\":{\"pos\":61,\"name\":\"TotalBytesOut\"},\"processNum\":1,\"tags\":{\"origin\":\"Metric\",\"nature\":\"Gauge\","
                + "\"scope\":\"Process\"},\"value\":{\"type\":\"u64\",\"value\":12}}]\n");
    }
}

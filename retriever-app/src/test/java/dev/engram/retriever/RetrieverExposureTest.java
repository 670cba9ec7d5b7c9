package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import dev.engram.config.EngramConfig;
import dev.engram.runtime.RuntimeConfig;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class RetrieverExposureTest {

    @Test
    void shouldRefuseAnUnauthenticatedApiOnANonLoopbackAddressWithoutTheExplicitFlag() {
        final EngramConfig open = EngramConfig.defaults().with(Map.of(RetrieverConfig.AUTH_ENABLED, false,
            RuntimeConfig.HTTP_BIND_ADDRESS, "0.0.0.0"));

        assertThatThrownBy(() -> RetrieverApp.checkExposure(open)).isInstanceOf(ConfigException.class)
            .hasMessageContaining("retriever.auth.enabled=false").hasMessageContaining("http.bind.address=0.0.0.0")
            .hasMessageContaining("retriever.auth.allow.unauthenticated.remote");
        assertThatCode(() -> RetrieverApp.checkExposure(open.with(Map.of(RetrieverConfig.AUTH_ALLOW_UNAUTHENTICATED_REMOTE, true))))
            .doesNotThrowAnyException();
    }

    @Test
    void shouldAllowAnUnauthenticatedApiOnLoopbackWhichIsTheDefault() {
        assertThatCode(() -> RetrieverApp.checkExposure(EngramConfig.defaults().with(Map.of(RetrieverConfig.AUTH_ENABLED, false))))
            .doesNotThrowAnyException();
        assertThatCode(() -> RetrieverApp.checkExposure(EngramConfig.defaults().with(Map.of(RetrieverConfig.AUTH_ENABLED, false,
            RuntimeConfig.HTTP_BIND_ADDRESS, "localhost")))).doesNotThrowAnyException();
    }
}

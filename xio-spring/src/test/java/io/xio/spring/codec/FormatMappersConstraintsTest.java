package io.xio.spring.codec;

import org.junit.jupiter.api.Test;
import tools.jackson.core.ErrorReportConfiguration;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamWriteConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamFactory;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.cbor.CBORFactory;
import tools.jackson.dataformat.smile.SmileFactory;
import tools.jackson.dataformat.smile.SmileMapper;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Review 17: an application's JsonMapper bean made with tighter read limits (a bounded-memory setting for input
 * from peers) loses them in the Smile (and CBOR) mapper FormatMappers builds "configured like it in every other
 * respect": the limits live in the token stream factory, which FormatMappers replaces by a default one.
 */
class FormatMappersConstraintsTest
{
    @Test
    void theJsonMappersStreamReadConstraintsCarryOverToTheSmileMapper()
    {
        final StreamReadConstraints tight = StreamReadConstraints.builder().maxNestingDepth(3).build();
        final JsonMapper json = JsonMapper.builder(JsonFactory.builder().streamReadConstraints(tight).build()).build();
        final Object deep = List.of(List.of(List.of(List.of(List.of(1)))));
        // JSON enforces the application's limit ...
        final byte[] deepJson = JsonMapper.builder().build().writeValueAsBytes(deep);
        assertThatThrownBy(() -> json.readTree(deepJson)).isInstanceOf(StreamConstraintsException.class);

        // ... and the Smile mapper configured like it should too.
        final ObjectMapper smile = FormatMappers.of(json, new SmileFactory());
        final byte[] deepSmile = SmileMapper.builder().build().writeValueAsBytes(deep);
        assertThatThrownBy(() -> smile.readTree(deepSmile)).isInstanceOf(StreamConstraintsException.class);
    }

    @Test
    void writeConstraintsErrorReportingAndFactoryFeaturesCarryOverToSmileAndCbor()
    {
        final StreamWriteConstraints write = StreamWriteConstraints.builder().maxNestingDepth(2).build();
        final ErrorReportConfiguration errors = ErrorReportConfiguration.builder().maxErrorTokenLength(7).build();
        final JsonMapper json = JsonMapper.builder(JsonFactory.builder().streamWriteConstraints(write)
            .errorReportConfiguration(errors).disable(TokenStreamFactory.Feature.INTERN_PROPERTY_NAMES)
            .enable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION).build()).build();
        final Object deep = List.of(List.of(List.of(1)));
        for (final TokenStreamFactory format : List.of(new SmileFactory(), new CBORFactory()))
        {
            final ObjectMapper mapper = FormatMappers.of(json, format);
            final TokenStreamFactory factory = mapper.tokenStreamFactory();
            assertThat(factory).isInstanceOf(format.getClass());
            assertThat(factory.streamWriteConstraints()).isSameAs(write);
            assertThat(factory.errorReportConfiguration()).isSameAs(errors);
            assertThat(factory.isEnabled(TokenStreamFactory.Feature.INTERN_PROPERTY_NAMES)).isFalse();
            assertThat(factory.isEnabled(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)).isTrue();
            // The format's own features stay the format's.
            assertThat(factory.getFormatWriteFeatures()).isEqualTo(format.getFormatWriteFeatures());
            assertThatThrownBy(() -> mapper.writeValueAsBytes(deep)).isInstanceOf(StreamConstraintsException.class);
        }
    }
}

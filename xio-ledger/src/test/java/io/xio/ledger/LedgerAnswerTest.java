package io.xio.ledger;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A stored answer's two kinds, and the engine's form of an error that the request handler replays. */
class LedgerAnswerTest
{
    @Test
    void anErrorMadeFromAnExceptionReadsBackItsTypeAndMessage()
    {
        final LedgerAnswer answer = LedgerAnswer.error(new IllegalStateException("no funds\nleft"));

        assertThat(answer.isError()).isTrue();
        assertThat(answer.errorType()).isEqualTo("java.lang.IllegalStateException");
        assertThat(answer.errorMessage()).isEqualTo("no funds\nleft");
        assertThat(LedgerAnswer.error(new IllegalStateException()).errorMessage()).isEmpty();
    }

    @Test
    void anErrorOfTheCallersOwnEncodingWithoutANewlineIsAllType()
    {
        final LedgerAnswer answer = LedgerAnswer.error("E42".getBytes(StandardCharsets.UTF_8));

        assertThat(answer.errorType()).isEqualTo("E42");
        assertThat(answer.errorMessage()).isEmpty();
    }

    @Test
    void answersAreEqualByKindAndBytes()
    {
        assertThat(LedgerAnswer.value(new byte[] {1, 2})).isEqualTo(LedgerAnswer.of(LedgerAnswer.Kind.VALUE,
            new byte[] {1, 2}));
        assertThat(LedgerAnswer.value(new byte[] {1})).isNotEqualTo(LedgerAnswer.error(new byte[] {1}));
        assertThat(LedgerAnswer.value(null).bytes()).isEmpty();
    }

    @Test
    void anOutcomeCodeNoAnswerHasIsRefused()
    {
        assertThat(LedgerAnswer.Kind.of(2)).isEqualTo(LedgerAnswer.Kind.ERROR);
        assertThatThrownBy(() -> LedgerAnswer.Kind.of(7)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("outcome 7");
    }
}

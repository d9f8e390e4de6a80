package io.xio.spring.autoconfigure.aot;

import io.xio.annotation.XioService;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;

import static org.assertj.core.api.Assertions.assertThat;

/** Review 17: binding hints for types reachable only through an array of a method's parameter or result. */
class XioAotHintGapsTest
{
    public record Item(String name)
    {
    }

    public record Label(String text)
    {
    }

    public interface Catalogue
    {
        Item[] all();

        int print(Label[] labels);
    }

    @XioService("catalogue")
    public static class CatalogueService implements Catalogue
    {
        @Override
        public Item[] all()
        {
            return new Item[0];
        }

        @Override
        public int print(final Label[] labels)
        {
            return labels.length;
        }
    }

    @Test
    void theElementTypeOfAnArrayResultOrParameterGetsBindingHints()
    {
        final DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerBeanDefinition("catalogue", new RootBeanDefinition(CatalogueService.class));
        final BeanFactoryInitializationAotContribution contribution =
            new XioBeanFactoryInitializationAotProcessor().processAheadOfTime(beanFactory);
        final TestGenerationContext generation = new TestGenerationContext();
        contribution.applyTo(generation, null);
        final RuntimeHints hints = generation.getRuntimeHints();

        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Catalogue.class, "all")).accepts(hints);
        // Jackson reads and writes Item and Label through their record accessors and canonical constructors.
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Item.class, "name")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Label.class, "text")).accepts(hints);
    }
}

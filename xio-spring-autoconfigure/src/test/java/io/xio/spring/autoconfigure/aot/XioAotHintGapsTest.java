package io.xio.spring.autoconfigure.aot;

import io.xio.annotation.XioService;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

import java.util.List;

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

    public record Cell(int value)
    {
    }

    public record Tag(String key)
    {
    }

    public record Part(String code)
    {
    }

    /** Reaches {@link Part} only through an array property. */
    public record Box(Part[] parts)
    {
    }

    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME)
    @JsonSubTypes(@JsonSubTypes.Type(value = Circle.class, name = "circle"))
    public interface Shape
    {
    }

    public record Circle(double radius) implements Shape
    {
    }

    public sealed interface Event permits Created, Deleted
    {
    }

    public record Created(String id) implements Event
    {
    }

    public record Deleted(String reason) implements Event
    {
    }

    /** Reaches {@link Shape} only as a property, so its subtypes come from the property walk. */
    public record Drawing(List<Shape> shapes)
    {
    }

    public interface Deep
    {
        Cell[][] grid();

        int tags(List<Tag>[] tags);

        Box box();

        Drawing drawing();

        Event last();
    }

    @XioService("deep")
    public static class DeepService implements Deep
    {
        @Override
        public Cell[][] grid()
        {
            return new Cell[0][];
        }

        @Override
        public int tags(final List<Tag>[] tags)
        {
            return tags.length;
        }

        @Override
        public Box box()
        {
            return new Box(new Part[0]);
        }

        @Override
        public Drawing drawing()
        {
            return new Drawing(List.of());
        }

        @Override
        public Event last()
        {
            return new Created("x");
        }
    }

    @Test
    void nestedAndGenericArraysArrayPropertiesJsonSubTypesAndSealedSubclassesGetBindingHints()
    {
        final DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerBeanDefinition("deep", new RootBeanDefinition(DeepService.class));
        final TestGenerationContext generation = new TestGenerationContext();
        new XioBeanFactoryInitializationAotProcessor().processAheadOfTime(beanFactory).applyTo(generation, null);
        final RuntimeHints hints = generation.getRuntimeHints();

        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Cell.class, "value")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Tag.class, "key")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Part.class, "code")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Circle.class, "radius")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Created.class, "id")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Deleted.class, "reason")).accepts(hints);
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

package io.xio.spring.autoconfigure.client;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Where {@code @XioClient} interfaces connect, supplied by a bean instead of {@code xio.clients.<name>.uri} /
 * {@code service-id}, the way Spring Boot's {@code ConnectionDetails} beans override {@code spring.rabbitmq.*} or
 * {@code spring.datasource.*}: a Testcontainers test hands in the address of the container it started, a platform
 * integration the address it looked up. An address given here wins over the client's {@code uri} and
 * {@code service-id} properties; the client's other settings ({@code timeout}, {@code ssl}, {@code credentials},
 * ...) still come from {@code xio.clients.<name>.*}. With several such beans, the first in {@code @Order} that knows
 * the client wins. A URI given on the annotation itself ({@code @XioClient(uri = ...)}) is fixed and not asked for.
 * <p>
 * Called once per client, on the thread that creates the client bean (start-up); it may be a lambda.
 */
@FunctionalInterface
public interface XioClientConnectionDetails extends ConnectionDetails
{
    /**
     * The address of one client, or null when this bean does not know it (its properties then apply).
     *
     * @param clientName the client's name as {@code @XioClient} gives it, e.g. {@code orderService}
     */
    Address getAddress(String clientName);

    /**
     * A client's address: a URI ({@code tcp://host:7000/orders}) to call one server, or a Spring Cloud discovery
     * service id to call every instance of a service; exactly one of them is set.
     */
    record Address(String uri, String serviceId)
    {
        public Address
        {
            if ((uri == null) == (serviceId == null))
            {
                throw new IllegalArgumentException("an address is a uri or a service id: uri=" + uri +
                    ", serviceId=" + serviceId);
            }
        }

        /** The address of one server, e.g. {@code tcp://127.0.0.1:7000/orders}. */
        public static Address uri(final String uri)
        {
            return new Address(uri, null);
        }

        /** Every instance registered under {@code serviceId} in Spring Cloud discovery. */
        public static Address serviceId(final String serviceId)
        {
            return new Address(null, serviceId);
        }
    }
}

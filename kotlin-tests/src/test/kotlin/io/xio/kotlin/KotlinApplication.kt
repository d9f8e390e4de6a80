package io.xio.kotlin

import io.xio.kotlin.server.CallerInterceptor
import io.xio.kotlin.server.Probe
import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.context.annotation.Bean

/** A service and its client in one application: the tests call the service through the client. */
@SpringBootApplication(proxyBeanMethods = false) // Kotlin classes are final: no CGLIB subclass
class KotlinApplication {
    @Bean
    fun probe() = Probe()

    @Bean
    fun callerInterceptor() = CallerInterceptor()
}

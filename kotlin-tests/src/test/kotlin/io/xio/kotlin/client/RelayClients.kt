package io.xio.kotlin.client

import io.xio.annotation.XioClient
import io.xio.kotlin.api.FlowLedger
import io.xio.kotlin.api.Relay

@XioClient("relay")
interface RelayClient : Relay

/** A Kotlin client with a Flow parameter, of the service that takes a Flux. */
@XioClient("ledger")
interface FlowLedgerClient : FlowLedger

package io.xio.kotlin.client

import io.xio.annotation.XioClient
import io.xio.kotlin.api.Catalog

@XioClient("catalog")
interface CatalogClient : Catalog

"""Console entry points. Each runs threads, never eventlet: importing this
package keeps eventlet out of the process before any command imports
oslo.messaging (see ``vnfm.common.process.without_eventlet``)."""

from vnfm.common import process

process.without_eventlet()

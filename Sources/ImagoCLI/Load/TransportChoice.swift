import ArgumentParser
import Imago

/// `--transport NAME`: `--help` lists every built-in transport.
extension BuiltInTransport: ExpressibleByArgument {}

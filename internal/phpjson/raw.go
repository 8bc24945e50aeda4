package phpjson

// Raw is JSON text that Marshal copies into its output as it is: a value encoded earlier (for
// example a cached API record). It must be one valid JSON value in this package's encoding.
type Raw []byte

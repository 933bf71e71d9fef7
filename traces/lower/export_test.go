package lower

// PartBits exports partBits to the tests.
const PartBits = partBits

import fc from 'fast-check';

// Property tests are deterministic like everything else: a fixed seed by default, another with
// FC_SEED=<n> to explore. fast-check prints the seed and the shrunk counterexample on failure.
const seed = Number(process.env['FC_SEED'] ?? 20261129);
// fast-check's default size ('small') keeps every generated array and string to about 10 items,
// whatever maxLength an arbitrary declares (fc.sample of fc.array(x, { maxLength: 300 }): at most
// 10, mean 5), so op sequences and payloads stayed far shorter than the tests say. 'medium' lets
// them reach about 100; an arbitrary that needs its declared maximum says size: 'max'.
fc.configureGlobal({ seed, baseSize: 'medium' });

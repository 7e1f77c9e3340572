import fc from 'fast-check';

// Property tests are deterministic like everything else: a fixed seed by default, another with
// FC_SEED=<n> to explore. fast-check prints the seed and the shrunk counterexample on failure.
const seed = Number(process.env['FC_SEED'] ?? 20261129);
fc.configureGlobal({ seed });

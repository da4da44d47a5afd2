/**
 * supercluster's self-contained UMD build as text, for the clustering worker (clusters.ts). The package
 * exports only its ES module, so the file is read by path; the bundler inlines it as a string.
 */
// @ts-expect-error: a JavaScript file imported as text (no declaration, by design)
import source from '../../../../node_modules/supercluster/dist/supercluster.min.js' with { type: 'text' };

export const superclusterSource: string = source;

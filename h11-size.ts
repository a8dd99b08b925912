import { buildOpenApiDocument } from './discovery/openapi.ts';
import { registry } from './registry/index.ts';
let t = performance.now();
const inline: any = buildOpenApiDocument(registry.operations, { publicBaseUrl: 'http://localhost:3000', share: false });
console.log('inline ms', Math.round(performance.now() - t)); t = performance.now();
const doc: any = buildOpenApiDocument(registry.operations, { publicBaseUrl: 'http://localhost:3000' });
console.log('shared ms', Math.round(performance.now() - t));
console.log('ops', registry.operations.length, 'shared', JSON.stringify(doc).length, 'inline', JSON.stringify(inline).length, (JSON.stringify(doc).length / JSON.stringify(inline).length).toFixed(3));

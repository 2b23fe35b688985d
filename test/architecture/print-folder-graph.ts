import { formatFolderGraph, readFolderGraph } from './folder-graph.js';

process.stdout.write(`${formatFolderGraph(readFolderGraph(process.cwd()))}\n`);

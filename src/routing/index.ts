export { askRouterModel, type RouterAnswer, readToolNames } from './ask-router-model.js';
export { chooseTools, inOrder, searchIndexFor, type ToolChoice } from './choose-tools.js';
export { latestUserText, type RoutedStep, routeTools, toolsInUse } from './route-tools.js';
export { isRoutedToolSet, type RoutedToolSet, routedToolSet } from './routed-tool-set.js';
export { DEFAULT_ROUTER_TIMEOUT_MS, DEFAULT_ROUTING_TOP_K, type RoutingOptions } from './routing-options.js';
export { type RoutingTexts, routingTexts } from './routing-texts.js';
export { tokenizeForSearch } from './tokenize-for-search.js';
export { FIELD_WEIGHTS, type QueryPart, type ToolScore, ToolSearchIndex } from './tool-search-index.js';

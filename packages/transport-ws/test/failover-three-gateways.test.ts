import { describeGatewayFailover } from './failover-suite.js';

// Three gateways, 48 tabs, 16 on each: the first one's tabs move to the other two, half to each,
// and each gateway's tabs gossip on moves the other admitted (WsGatewayOptions.member).
describeGatewayFailover(3, 48);

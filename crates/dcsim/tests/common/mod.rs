//! Scenarios shared by the integration test files.

/// DCTCP paper Fig. 1 / Fig. 13 setup, N = 2 senders h1, h2 → h0 at 1 Gbps, K = 20, m = 2.
pub const DCTCP_TWO_FLOWS: &str = r#"
        [sim]
        seed = 1
        duration_s = 0.3
        warmup_s = 0.1
        [topology]
        kind = "star"
        hosts = 3
        link = { rate_gbps = 1.0, delay_us = 25.0 }
        [switch.aqm]
        kind = "threshold"
        k_packets = 20
        [tcp]
        cc = "dctcp"
        delayed_ack_segments = 2
        [[flows]]
        src = 1
        dst = 0
        [[flows]]
        src = 2
        dst = 0
"#;

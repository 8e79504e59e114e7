// Messages for the benchmarks: the protocol's example exchange and typical status traffic.
export const CORPUS = [
  '[A2A:discover]\n你好！我想了解一下你的能力，看看我们能不能协作完成一个任务。',
  '[A2A:task id=research-001 skill=research]\n帮我调研一下 "AI Agent 生态的最新进展"，时间范围过去一周。\n预计需要的输出：markdown 报告文件。',
  '[A2A:status task=research-001 state=working progress=50%]\n正在收集资料，预计还需要 10 分钟。',
  '[A2A:result task=research-001 state=completed]\n调研报告已完成，见附件。\n[附件: ai-agent-research-2026-02.md]',
  '[A2A:task id=email-001 skill=email]\n帮我把这份调研报告发给鲁伊科斯塔。\n收件人：ruicosta@example.com\n主题：AI Agent 调研报告\n正文：请查收附件中的调研报告。\n[附件: ai-agent-research.md]',
  '[A2A:status task=email-001 state=accepted]\n收到，正在发送邮件。',
  '[A2A:status task=research-001 state=failed reason="缺少 权限"]\n无法完成此任务：缺少访问 X 数据源的权限。\n建议：请联系鲁伊科斯塔授权。',
  '[A2A:cancel task=research-001 reason=duplicate]',
];

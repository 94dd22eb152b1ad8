// Claude Code's keys, each classified: inert (a preference, a counter, a cache: changing it runs
// nothing, widens no permission, names no program, path, URL or instruction) or code-bearing.
// The audit keeps a session's changes to inert keys only; a key in neither list is code-bearing.
//
// The settings keys are the top-level keys of Claude Code's settings schema, as the installed
// claude carries it; tests/integration/test_audit_claude_key_table.sh fails when a newer claude
// has a key this table does not classify. ~/.claude.json has no schema: its inert keys are the
// ones claude writes itself (its defaults, its counters and caches), read from the same binary.
#include <algorithm>
#include <string_view>

#include "common/claude_keys.hpp"

namespace blaude {

namespace {

// Sorted at first use; looked up by binary search.
struct Table {
  std::vector<std::string_view> inert, code;
  Table(std::initializer_list<std::string_view> i, std::initializer_list<std::string_view> c) : inert(i), code(c) {
    std::sort(inert.begin(), inert.end());
    std::sort(code.begin(), code.end());
  }
  std::optional<ClaudeKeyClass> find(std::string_view k) const {
    if (std::binary_search(inert.begin(), inert.end(), k)) return ClaudeKeyClass::Inert;
    if (std::binary_search(code.begin(), code.end(), k)) return ClaudeKeyClass::Code;
    return std::nullopt;
  }
};

const Table& settings_table() {
  static const Table t{
      // Inert: display, pacing, model choice, reminders and limits on what is shown.
      {"$schema", "respectGitignore", "breakReminder", "quietHours", "cleanupPeriodDays",
       "desktopSessionCleanupPeriodDays", "skillListingMaxDescChars", "skillListingBudgetFraction",
       "includeCoAuthoredBy", "includeGitInstructions", "attribution", "attributionProject", "model", "fallbackModel",
       "modelPicker", "effortLevel", "maxEffortLevel", "modelSettings", "advisorModel", "alwaysThinkingEnabled",
       "outputStyle", "viewMode", "language", "feedbackSurveyRate", "feedbackDrafts", "spinnerTipsEnabled",
       "clawdFileProgressEnabled", "spinnerVerbs", "spinnerTipsOverride", "syntaxHighlightingDisabled",
       "maxProseWidth", "spellcheck", "terminalTitleFromRename", "prefersReducedMotion", "timeFormat", "timeZone",
       "theme", "editorMode", "keybindingFlavor", "vimInsertModeRemaps", "verbose", "preferredNotifChannel",
       "autoCompactEnabled", "precomputeCompactionEnabled", "precomputeArmTokens", "autoCompactRaisedForLoad",
       "autoCompactOfferAnswer", "idleCompaction", "autoCompactWindow", "autoScrollEnabled",
       "wheelScrollAccelerationEnabled", "fileCheckpointingEnabled", "showTurnDuration", "showMessageTimestamps",
       "terminalProgressBarEnabled", "todoFeatureEnabled", "promptSuggestionEnabled", "emojiCompletionEnabled",
       "awaySummaryEnabled", "responseComparisonEnabled", "showClearContextOnPlanAccept", "showThinkingSummaries",
       "fastMode", "fastModePerSessionOptIn", "inputNeededNotifEnabled", "agentPushNotifEnabled",
       "bashOutputMaxChars", "taskOutputMaxChars", "askUserQuestionTimeout", "dialogExpiry", "totalTokensReminder",
       "totalTokensReminderBudget", "totalTokensReminderAfterUserTurn", "promptCacheTtl", "subagentPromptCacheTtl",
       "autoUpdatesChannel", "bashEditDiffEnabled", "respondToBashCommands"},
      // Code-bearing: programs, permissions, environment, MCP servers, plugins and marketplaces,
      // hooks and their switches, instructions (CLAUDE.md, memory, agents, skills), endpoints and
      // trust roots, what runs unattended, and managed-policy switches a user file must not carry.
      {"apiKeyHelper", "proxyAuthHelper", "awsCredentialExport", "awsAuthRefresh", "gcpAuthRefresh", "processWrapper",
       "policyHelper", "policyHelpers", "fileSuggestion", "syncClaudeAiSkills", "syncClaudeAiPlugins",
       "wslInheritsWindowsSettings", "env", "attributionProjectPolicy", "permissions", "additionalDirectoryConfigRoots",
       "availableModels", "enforceAvailableModels", "availableModelsMatch", "deniedModels", "modelOverrides",
       "modelPricing", "modelCatalogUrl", "modelCatalogPublicKey", "enableAllProjectMcpServers",
       "enabledMcpjsonServers", "disabledMcpjsonServers", "disableClaudeAiConnectors", "skillOverrides",
       "disableBundledSkills", "managedMcpServers", "allowedMcpServers", "deniedMcpServers", "hooks", "worktree",
       "disableAllHooks", "disableReplyCheck", "disableAgentView", "disableRemoteControl", "disableWorkflows",
       "disableArtifact", "enableArtifact", "enableWorkflows", "workflowSizeGuideline",
       "workflowKeywordTriggerEnabled", "disableSkillShellExecution", "disableWindowsBashCommandSplit", "defaultShell",
       "allowManagedHooksOnly", "allowedHttpHookUrls", "httpHookAllowedEnvVars", "allowManagedPermissionRulesOnly",
       "allowManagedMcpServersOnly", "desktopMcpServersListScope", "allowAllClaudeAiMcps",
       "allowClaudeInChromeWithManagedMcp", "strictPluginOnlyCustomization", "statusLine", "prUrlTemplate",
       "footerLinksRegexes", "subagentStatusLine", "enabledPlugins", "prependPlugins", "appendPlugins",
       "extraKnownMarketplaces", "additionalMarketplaces", "strictKnownMarketplaces", "allowedMarketplaces",
       "blockedMarketplaces", "disableCommandPluginSources", "disableSideloadFlags", "pluginSuggestionMarketplaces",
       "forceLoginMethod", "forceLoginGatewayUrl", "gatewayInternalNetworks", "parentSettingsBehavior",
       "managedSourcesBehavior", "forceLoginOrgUUID", "allowNestedModelAccessUnderForceLogin", "allowedProviders",
       "forceRemoteSettingsRefresh", "otelHeadersHelper", "skipWebFetchPreflight", "sandbox", "ultracode", "agent",
       "modelProposedGoals", "companyAnnouncements", "pluginConfigs", "remote", "minimumVersion",
       "requiredMinimumVersion", "requiredMaximumVersion", "downloadsMirrorUrl", "plansDirectory", "tui", "voice",
       "channelsEnabled", "allowedChannelPlugins", "doneMeansMerged", "autoMemoryEnabled", "autoMemoryDirectory",
       "autoDreamEnabled", "skipDangerousModePermissionPrompt", "skipWorkflowUsageWarning", "disableAutoMode",
       "remoteTools", "sshConfigs", "sshHostCommands", "claudeMd", "claudeMdExcludes", "pluginTrustMessage",
       "switchModelsOnFlag", "autoContinueAtUsageLimit", "teammateMode", "remoteControlAtStartup", "remoteControl",
       "isolatePeerMachines", "daemonColdStart", "crossSessionInbound", "remoteMessageReceipts", "autoUploadSessions",
       "mcpServers", "allowedTools"}};
  return t;
}

// ~/.claude.json, top level. Code-bearing: a key, a helper or an environment of its own, MCP
// servers, IDE and extension installs, the install method the updater follows, the approvals of
// dialogs that guard code (bypass mode, API keys), remote control; everything not listed.
const Table& state_table() {
  static const Table t{
      {"numStartups", "autoUpdates", "autoUpdatesProtectedForNative", "theme", "preferredNotifChannel", "verbose",
       "editorMode", "autoCompactEnabled", "autoScrollEnabled", "showTurnDuration", "externalEditorContext",
       "showMessageTimestamps", "hasSeenTasksHint", "hasUsedStash", "hasUsedBackgroundTask",
       "queuedCommandUpHintCount", "tipsHistory", "tipsHistoryByCommand", "memoryUsageCount", "promptQueueUseCount",
       "btwUseCount", "todoFeatureEnabled", "showExpandedTodos", "briefTranscript", "messageIdleNotifThresholdMs",
       "fileCheckpointingEnabled", "terminalProgressBarEnabled", "cachedDynamicConfigs", "cachedFeatureFlags",
       "respectGitignore", "copyFullResponse", "copyOnSelect", "firstStartTime", "firstStartVersion", "machineID",
       "userID", "anonymousId", "opusProMigrationComplete", "seenNotifications", "hasResetAutoModeOptInForDefaultOffer",
       "migrationVersion", "pluginUsage", "shiftEnterKeyBindingInstalled", "hasUsedBackslashReturn", "diffSidebarOpen",
       "showStatusInTerminalTab", "taskCompleteNotifEnabled", "inputNeededNotifEnabled", "agentPushNotifEnabled",
       "hasCompletedClaudeInChromeOnboarding", "lspRecommendationDisabled", "lspRecommendationNeverPlugins",
       "lspRecommendationIgnoredCount", "leftArrowOpensAgents", "defaultToAgentsView", "prStatusFooterEnabled",
       "remoteDialogSeen", "hasCompletedOnboarding", "lastOnboardingVersion", "lastReleaseNotesSeen",
       "changelogLastFetched", "cachedChangelog", "oauthAccount", "subscriptionNoticeCount", "hasAvailableSubscription",
       "recommendedSubscription", "fallbackAvailableWarningThreshold", "isQualifiedForDataSharing",
       "cachedStatsigGates", "cachedGrowthBookFeatures", "s1mAccessCache", "s1mNonSubscriberAccessCache",
       "feedbackSurveyState", "passesEligibilityCache", "groveConfigCache", "hasIdeOnboardingBeenShown",
       "announcementImpressions", "appleTerminalSetupInProgress", "autoModeClassifierBillingNoticeAcknowledgedAt",
       "bridgeOauthDeadExpiresAt", "cachedChromeExtensionInstalled", "cachedExtraUsageDisabledReason",
       "cachedUsageUtilization", "claudeCodeFirstTokenDate", "closedIssuesAcknowledged", "closedIssuesLastChecked",
       "fable51OrgPickMoveDone", "fable51OrgPickMoveWaitingSince", "fable51ToFableAliasMigrationTimestamp",
       "favoritePlugins", "feedbackDraftsTurnOffPromptDeclines", "feedbackRefusedByServer", "fullscreenBootPending",
       "githubActionSetupCount", "githubRepoPaths", "gzipRequestBodiesLatchedOff", "hasAcknowledgedCostThreshold",
       "hasOpenedAgentsView", "hasVisitedPasses", "iterm2It2SetupComplete", "iterm2SetupInProgress",
       "legacyOpusMigrationTimestamp", "passesUpsellSeenCount", "pluginSurveyState", "powerShellCommandLostAt",
       "powerupsUnlocked", "preferTmuxOverIterm2", "privacyCheckupCache", "privacyCheckupShown", "promoCreditCheck",
       "rcPermissionNudgeSeenCount", "savedModelSuccessorAnswered", "slackAppInstallCount",
       "sonnet45To46MigrationTimestamp", "subagentConfigClassifierCalls", "teamOnboardingLastUsedAt",
       "transcriptShareDismissed", "unusedLimitResetStatusCache", "voiceLangHintShownCount", "workflowSizeGuideline",
       "sonnet45MigrationComplete", "lastPlanModeUse", "hasShownOpus45Notice", "ideHintShownCount"},
      {"mcpServers", "env", "apiKeyHelper", "primaryApiKey", "customApiKeyResponses", "installMethod", "diffTool",
       "autoConnectIde", "autoInstallIdeExtension", "claudeInChromeDefaultEnabled", "enabledMcpjsonServers",
       "disabledMcpjsonServers", "enableAllProjectMcpServers", "allowedTools", "bypassPermissionsModeAccepted",
       "officialMarketplaceAutoInstallAttempted", "officialMarketplaceAutoInstalled", "remoteControlAtStartup",
       "autoUploadSessions", "autoAddRemoteControlDaemonWorker"}};
  return t;
}

// ~/.claude.json, in each projects.<dir> entry: the session's statistics and onboarding are
// inert; the trust dialog, the approvals, MCP servers and permission modes are code-bearing.
const Table& project_state_table() {
  static const Table t{
      {"lastCost", "lastAPIDuration", "lastAPIDurationWithoutRetries", "lastToolDuration", "lastDuration",
       "lastLinesAdded", "lastLinesRemoved", "lastTotalInputTokens", "lastTotalOutputTokens",
       "lastTotalCacheCreationInputTokens", "lastTotalCacheReadInputTokens", "lastTotalWebSearchRequests",
       "lastModelUsage", "lastSessionId", "lastSessionMetrics", "lastStartTime", "lastFpsAverage", "lastFpsLow1Pct",
       "lastGracefulShutdown", "lastVersionBase", "projectOnboardingSeenCount", "hasCompletedProjectOnboarding",
       "hasClaudeMdExternalIncludesWarningShown", "exampleFiles", "exampleFilesGeneratedAt", "history",
       "orgMemoryRead", "reactVulnerabilityCache"},
      {"allowedTools", "mcpContextUris", "mcpServers", "enabledMcpjsonServers", "disabledMcpjsonServers",
       "enableAllProjectMcpServers", "hasTrustDialogAccepted", "hasClaudeMdExternalIncludesApproved",
       "activeWorktreeSession", "pickedPermissionMode", "ignorePatterns", "dontCrawlDirectory"}};
  return t;
}

}  // namespace

std::optional<ClaudeKeyClass> claude_key_class(ClaudeKeyScope scope, std::string_view key) {
  switch (scope) {
    case ClaudeKeyScope::Settings: return settings_table().find(key);
    case ClaudeKeyScope::State: return state_table().find(key);
    case ClaudeKeyScope::ProjectState: return project_state_table().find(key);
  }
  return std::nullopt;
}

bool claude_key_inert(ClaudeKeyScope scope, std::string_view key) {
  return claude_key_class(scope, key) == ClaudeKeyClass::Inert;
}

}  // namespace blaude

@echo off
rem baton: recipe demos and live recipe state on Apache ZooKeeper. Run "baton help".
rem Needs only a Java 17+ runtime: %JAVA_HOME%\bin\java.exe when JAVA_HOME is set, else java on the PATH.
setlocal
set "BATON_HOME=%~dp0.."
if defined JAVA_HOME (set "JAVA=%JAVA_HOME%\bin\java.exe") else (set "JAVA=java")
"%JAVA%" %JAVA_OPTS% -cp "%BATON_HOME%\lib\*" dev.baton.cli.BatonCommand %*
